import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("PNG reduced decode")
struct PNGReducedDecodeTests {
    let coder = PNGCoder()

    static func buffer(_ width: Int, _ height: Int, _ rows: [[(UInt8, UInt8, UInt8, UInt8)]]) -> PixelBuffer {
        PixelBuffer.make(width: width, height: height) { out in
            for (y, row) in rows.enumerated() {
                for (x, p) in row.enumerated() {
                    let i = (y * width + x) * 4
                    out[i] = p.0; out[i + 1] = p.1; out[i + 2] = p.2; out[i + 3] = p.3
                }
            }
        }
    }

    /// A 5×3 RGBA image whose 2×2 block averages are worked out by hand below: transparent
    /// pixels with bright colours, a half-transparent pixel, partial blocks on the right and
    /// at the bottom.
    static let small = buffer(5, 3, [
        [(10, 20, 30, 255), (30, 40, 50, 255), (100, 0, 0, 255), (255, 255, 255, 0), (7, 7, 7, 255)],
        [(50, 60, 70, 255), (70, 80, 90, 255), (0, 100, 0, 51), (0, 0, 200, 0), (9, 9, 9, 255)],
        [(1, 2, 3, 255), (3, 4, 5, 255), (50, 50, 50, 0), (60, 60, 60, 0), (11, 12, 13, 128)],
    ])

    /// A 203×101 RGBA PNG (no side a multiple of any shrink) with varied colours and alpha.
    static let ramp: Data = {
        let pixels = PixelBuffer.make(width: 203, height: 101) { out in
            for y in 0..<101 {
                for x in 0..<203 {
                    let i = (y * 203 + x) * 4
                    out[i] = UInt8(x * 255 / 202); out[i + 1] = UInt8(y * 255 / 100)
                    out[i + 2] = UInt8((x * 7 + y * 13) % 256); out[i + 3] = UInt8((x + y) % 5 == 0 ? 0 : 255 - x)
                }
            }
        }
        return try! PNGCoder().encode(Image(pixels: pixels, hasAlpha: true), format: .png, options: EncodeOptions())
    }()

    /// The description of the ``WebImageError`` `body` throws, `nil` when it succeeds.
    static func failure(_ body: () throws -> Image) -> String? {
        do { _ = try body() } catch let error as WebImageError { return error.description } catch { return "\(error)" }
        return nil
    }

    @Test("Given a 5×3 RGBA PNG, when decoded at 1/2, then each pixel is its 2×2 block's alpha-weighted average, partial blocks over the pixels present")
    func exactBlockAverages() throws {
        let data = try coder.encode(Image(pixels: Self.small, hasAlpha: true), format: .png, options: EncodeOptions())
        #expect(try coder.decode(data, options: DecodeOptions()).pixels.bytes == Self.small.bytes)
        let reduced = try coder.decode(data, scaleDenominator: 2, options: DecodeOptions())
        #expect(reduced.pixelSize == PixelSize(width: 3, height: 2))
        #expect(reduced.hasAlpha)
        let expected = Self.buffer(3, 2, [
            [(40, 50, 60, 255), (83, 17, 0, 77), (8, 8, 8, 255)],
            [(2, 3, 4, 255), (0, 0, 0, 0), (11, 12, 13, 128)],
        ])
        #expect(reduced.pixels.bytes == expected.bytes)
        // 1/1 is the stored image; 1/8 one pixel for the whole image.
        #expect(try coder.decode(data, scaleDenominator: 1, options: DecodeOptions()).pixels.bytes == Self.small.bytes)
        #expect(try coder.decode(data, scaleDenominator: 8, options: DecodeOptions()).pixelSize == PixelSize(width: 1, height: 1))
    }

    @Test("Given a scale denominator, when decoded, then each side is the stored side divided by it, rounded up", arguments: 1...8)
    func reducedSizes(denominator: Int) throws {
        let image = try coder.decode(Self.ramp, scaleDenominator: denominator, options: DecodeOptions())
        let expected = PixelSize(width: (203 + denominator - 1) / denominator, height: (101 + denominator - 1) / denominator)
        #expect(PNGCoder.reducedSize(of: PixelSize(width: 203, height: 101), scaleDenominator: denominator) == expected)
        #expect(image.pixelSize == expected)
    }

    @Test("Given PngSuite images of every colour type and depth, when decoded at 1/d, then the result is the full decode downscaled by d×d blocks", .enabled(if: Corpus.isAvailable))
    func matchesFullDecodeDownscaled() throws {
        let names = ["basn0g01", "basn0g02", "basn0g04", "basn0g08", "basn0g16", "basn2c08", "basn2c16", "basn3p01",
                     "basn3p08", "basn4a08", "basn4a16", "basn6a08", "basn6a16", "tbrn2c08", "tbbn3p08", "tp1n3p08"]
        // As stored: PngSuite's gAMA 1.0 would otherwise be converted, and conversion does
        // not commute with block averaging.
        var options = DecodeOptions()
        options.colorManagement = .ignore
        for name in names {
            let data = try Corpus.data("pngsuite/\(name).png")
            let full = try coder.decode(data, options: options)
            #expect(try coder.decode(data, scaleDenominator: 1, options: options).pixels.bytes == full.pixels.bytes, "\(name)")
            for d in [2, 4, 8] {
                let reduced = try coder.decode(data, scaleDenominator: d, options: options)
                let expected = full.pixels.downscaled(to: PixelSize(width: full.width / d, height: full.height / d))
                #expect(reduced.pixels.bytes == expected.bytes, "\(name) at 1/\(d)")
                #expect(reduced.hasAlpha == full.hasAlpha, "\(name)")
            }
        }
    }

    @Test("Given a thumbnail size too, when decoded reduced, then the denominator alone sets the size")
    func thumbnailSettingsIgnored() throws {
        let image = try coder.decode(Self.ramp, scaleDenominator: 3, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 10, height: 10)))
        #expect(image.pixelSize == PixelSize(width: 68, height: 34))
    }

    @Test("Given a denominator outside 1…8, when decoded, then it is refused", arguments: [0, 9, 16, -2])
    func unsupportedDenominator(denominator: Int) {
        #expect(throws: WebImageError.self) {
            try coder.decode(Self.ramp, scaleDenominator: denominator, options: DecodeOptions())
        }
    }

    @Test("Given limits, when decoded reduced, then the pixel limit applies to the stored size and the byte budget to the reduced one")
    func limits() throws {
        var options = DecodeOptions()
        options.limits.maxPixelCount = 203 * 101 - 1
        let tooMany = Self.failure { try coder.decode(Self.ramp, scaleDenominator: 8, options: options) }
        #expect(tooMany?.contains("20503 pixels") == true, "\(tooMany ?? "no error")")
        // The reduced 1/4 decode (51×26) fits a budget the full size (203×101) does not.
        options = DecodeOptions()
        options.limits.maxDecodedBytes = 51 * 26 * 4
        #expect(throws: WebImageError.self) { try coder.decode(Self.ramp, options: options) }
        #expect(throws: WebImageError.self) { try coder.decode(Self.ramp, scaleDenominator: 1, options: options) }
        #expect(try coder.decode(Self.ramp, scaleDenominator: 4, options: options).pixelSize == PixelSize(width: 51, height: 26))
        #expect(throws: WebImageError.self) { try coder.decode(Self.ramp, scaleDenominator: 3, options: options) }
    }

    @Test("Given truncated or corrupt image data, when decoded reduced, then it fails with the full decoder's error")
    func hostileInputs() throws {
        let bytes = [UInt8](Self.ramp)
        // Where the IDAT chunk's type is; its data starts 4 bytes later.
        let name: [UInt8] = Array("IDAT".utf8)
        let found = (8..<(bytes.count - 4)).first { (at: Int) -> Bool in Array(bytes[at..<(at + 4)]) == name }
        let idat = try #require(found)
        var badCRC = bytes
        badCRC[idat + 4 + 100] ^= 0x5A
        var cases: [(String, Data)] = [("bad IDAT CRC", Data(badCRC))]
        for cut in [idat + 60, idat + 2000, bytes.count / 2, bytes.count - 20] {
            cases.append(("cut at \(cut)", Data(bytes.prefix(cut))))
        }
        for (name, data) in cases {
            let expected = try #require(Self.failure { try coder.decode(data, options: DecodeOptions()) }, "\(name): the full decode must fail")
            #expect(expected.contains("bad image data"), "\(name): \(expected)")
            for d in [1, 2, 3] {
                let failure = Self.failure { try coder.decode(data, scaleDenominator: d, options: DecodeOptions()) }
                #expect(failure == expected, "\(name) at 1/\(d)")
            }
        }
    }

    @Test("Given an interlaced PNG or an APNG, when asked, then no reduced decode is offered and decoding reduced is refused", .enabled(if: Corpus.isAvailable))
    func interlacedAndAnimatedRefused() throws {
        for path in ["pngsuite/basi6a08.png", "pngsuite/basi0g08.png", "sdwebimage/TestImageAnimated.apng"] {
            let data = try Corpus.data(path)
            #expect(!coder.canDecodeReduced(data), "\(path)")
            #expect(throws: WebImageError.self, "\(path)") { try coder.decode(data, scaleDenominator: 2, options: DecodeOptions()) }
        }
        #expect(coder.canDecodeReduced(Self.ramp))
        #expect(coder.canDecodeReduced(try Corpus.data("pngsuite/basn6a08.png")))
    }

    @Test("Given a PNG with an eXIf orientation, when decoded reduced, then the orientation is applied to the reduced pixels unless kept", .enabled(if: Corpus.isAvailable))
    func exifOrientation() throws {
        let data = try Corpus.data("png-regressions/bugfixes/F-exif-chunk-early.png")
        let stored = try coder.decode(data, scaleDenominator: 2, options: DecodeOptions(applyOrientation: false))
        #expect(stored.orientation == .right)
        let upright = try coder.decode(data, scaleDenominator: 2, options: .default)
        #expect(upright.orientation == .up)
        #expect(upright.pixels.bytes == stored.pixels.applying(.right).bytes)
        let full = try coder.decode(data, options: .default)
        #expect(try coder.decode(data, scaleDenominator: 1, options: .default).pixels.bytes == full.pixels.bytes)
    }
}
