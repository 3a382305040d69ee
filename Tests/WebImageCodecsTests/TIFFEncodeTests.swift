import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// TIFF output (SPEC H-1): RGBA16 written at 16 bits a sample, RGBA8 at 8, read back sample
/// for sample by our decoder and by libtiff in another build (PyPI `imagecodecs`).
@Suite("TIFF encoding: 8 and 16 bits")
struct TIFFEncodeTests {
    static let width = 23, height = 11

    /// RGBA16 samples that use their low bytes; alpha opaque unless `alpha`.
    static func wide(alpha: Bool) -> PixelBuffer {
        PixelBuffer.make16(width: width, height: height) { out in
            for i in 0..<(width * height) {
                for c in 0..<3 { out[i * 4 + c] = UInt16(truncatingIfNeeded: (i * 3 + c) &* 2_654_435_761 >> 9) }
                out[i * 4 + 3] = alpha ? UInt16(truncatingIfNeeded: i * 977) : 65_535
            }
        }
    }

    static var wideOptions: DecodeOptions {
        var options = DecodeOptions()
        options.preferredPixelFormat = .rgba16
        return options
    }

    /// Bits a sample from the first IFD of a little-endian TIFF (tag 258, first value).
    static func bitsPerSample(_ data: Data) -> Int? {
        let b = [UInt8](data)
        guard b.count > 8, b[0] == 0x49, b[1] == 0x49 else { return nil }
        func u16(_ o: Int) -> Int { Int(b[o]) | Int(b[o + 1]) << 8 }
        func u32(_ o: Int) -> Int { u16(o) | u16(o + 2) << 16 }
        let ifd = u32(4)
        guard ifd + 2 <= b.count else { return nil }
        for e in 0..<u16(ifd) {
            let o = ifd + 2 + e * 12
            guard o + 12 <= b.count, u16(o) == 258 else { continue }
            let count = u32(o + 4)
            return count == 1 ? u16(o + 8) : u16(u32(o + 8))
        }
        return nil
    }

    @Test("Given RGBA16 pixels (opaque, and with alpha), when encoded as TIFF and decoded at 16 bits, then the file has 16 bits a sample and every sample comes back", arguments: [false, true])
    func sixteenBitRoundTrip(alpha: Bool) throws {
        let pixels = Self.wide(alpha: alpha)
        let data = try TIFFCoder().encode(Image(pixels: pixels, hasAlpha: alpha), format: .tiff, options: .default)
        #expect(Self.bitsPerSample(data) == 16)
        let image = try TIFFCoder().decode(data, options: Self.wideOptions)
        #expect(image.pixels.format == .rgba16)
        #expect(image.pixelSize == PixelSize(width: Self.width, height: Self.height))
        #expect(image.pixels.withSamples16 { Array($0) } == pixels.withSamples16 { Array($0) })
        // More than 8 bits: most samples are not 8-bit values widened.
        #expect(image.pixels.withSamples16 { $0.filter { $0 % 257 != 0 }.count } > Self.width * Self.height)
    }

    @Test("Given RGBA8 pixels (opaque, and with alpha), when encoded as TIFF, then 8 bits a sample and the same pixels back (colours of translucent pixels to the decoder's premultiplied rounding)", arguments: [false, true])
    func eightBitRoundTrip(alpha: Bool) throws {
        let pixels = Self.wide(alpha: alpha).convertedToRGBA8()
        let data = try TIFFCoder().encode(Image(pixels: pixels, hasAlpha: alpha), format: .tiff, options: .default)
        #expect(Self.bitsPerSample(data) == 8)
        let image = try TIFFCoder().decode(data, options: Self.wideOptions)
        #expect(image.pixels.format == .rgba8)
        guard alpha else {
            #expect(image.pixels.bytes == pixels.bytes)
            return
        }
        // libtiff's 8-bit RGBA reader premultiplies, the decoder divides again: a colour sample
        // comes back within 255 / (2 · alpha) + 1, alpha exactly.
        for (i, (back, original)) in zip(image.pixels.bytes, pixels.bytes).enumerated() {
            let a = Int(pixels.bytes[i | 3])
            if i % 4 == 3 {
                #expect(back == original)
            } else if a > 0 {
                #expect(abs(Int(back) - Int(original)) <= 255 / (2 * a) + 1, "sample \(i), alpha \(a)")
            }
        }
    }

    @Test("Given an RGBA16 image in Display P3 (CICP 12/13), when encoded as TIFF, then an ICC profile is embedded and decoding it to sRGB differs from reading the samples as sRGB")
    func profileEmbedded() throws {
        let p3 = ColorProfile(kind: .cicp(CICP(colorPrimaries: 12, transferCharacteristics: 13, matrixCoefficients: 0, fullRange: true)))
        let data = try TIFFCoder().encode(Image(pixels: Self.wide(alpha: false), hasAlpha: false, colorProfile: p3), format: .tiff, options: .default)
        var keep = Self.wideOptions
        keep.colorManagement = .preserve
        let kept = try TIFFCoder().decode(data, options: keep)
        #expect(kept.colorProfile?.iccData != nil)
        let ignored = try TIFFCoder().decode(data, options: { var o = DecodeOptions(); o.colorManagement = .ignore; return o }())
        #expect(try TIFFCoder().decode(data, options: .default).pixels.bytes != ignored.pixels.bytes)
    }

    @Test("Given a 16-bit PQ picture (CICP 9/16), when encoded as TIFF, then it is tone-mapped to 8-bit SDR, as JPEG output is")
    func pqToneMapped() throws {
        let pq = ColorProfile(kind: .cicp(CICP(colorPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 0, fullRange: true)))
        let image = Image(pixels: Self.wide(alpha: false), hasAlpha: false, colorProfile: pq)
        let data = try TIFFCoder().encode(image, format: .tiff, options: .default)
        #expect(Self.bitsPerSample(data) == 8)
        let decoded = try TIFFCoder().decode(data, options: Self.wideOptions)
        #expect(decoded.colorProfile == nil)
        let jpegPath = try JPEGCoder().decode(try JPEGCoder().encode(image, format: .jpeg, options: EncodeOptions(quality: 1)), options: .default)
        // The same tone mapping (JPEG adds its own small coding error).
        let diffs = zip(decoded.pixels.bytes, jpegPath.pixels.bytes).map { abs(Int($0) - Int($1)) }
        #expect(Double(diffs.reduce(0, +)) / Double(diffs.count) < 4)
    }

    @Test(
        "Given RGBA16 pixels written as TIFF, when libtiff in PyPI imagecodecs reads the file, then it finds uint16 samples equal to ours",
        .enabled(if: UltraHDRReference.isAvailable))
    func readByImagecodecs() throws {
        let python = try UltraHDRReference.python.get()
        let pixels = Self.wide(alpha: false)
        let data = try TIFFCoder().encode(Image(pixels: pixels, hasAlpha: false), format: .tiff, options: .default)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("tiff-encode-\(UUID().uuidString).tif")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
            import sys, imagecodecs
            a = imagecodecs.tiff_decode(open(sys.argv[1], 'rb').read())
            print(a.dtype, *a.shape, int(a[0, 0, 0]), int(a[5, 7, 2]), int(a[10, 22, 1]))
            """
        let output = UltraHDRReference.run(python, ["-c", script, file.path])
        #expect(output.status == 0, "\(output.stderr.suffix(400))")
        let fields = output.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
        let expected = pixels.withSamples16 { s in [s[0], s[(5 * Self.width + 7) * 4 + 2], s[(10 * Self.width + 22) * 4 + 1]].map(String.init) }
        #expect(fields == ["uint16", "\(Self.height)", "\(Self.width)", "3"] + expected)
    }
}
