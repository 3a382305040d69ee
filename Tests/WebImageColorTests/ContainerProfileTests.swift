import CJXL
import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// G-1: TIFF tag 34675 and AVIF `colr` read and converted like the other formats.
@Suite("Colour: TIFF and AVIF")
struct ContainerProfileTests {
    static let ignore: DecodeOptions = {
        var options = DecodeOptions()
        options.colorManagement = .ignore
        return options
    }()

    @Test("Given a TIFF with an ICC profile in tag 34675, when decoded, then it matches LittleCMS and .preserve keeps it")
    func tiffProfile() throws {
        let profile = TestProfiles.profile(TestProfiles.proPhoto)
        let pixels = TestImages.pattern()
        var rgb: [UInt8] = []
        for i in stride(from: 0, to: pixels.bytes.count, by: 4) { rgb += pixels.bytes[i..<(i + 3)] }
        var page = TIFFTestPage(width: pixels.width, height: pixels.height, samples: rgb)
        page.iccProfile = [UInt8](profile.iccData!)
        let data = try TIFFTestWriter.write([page])
        #expect(try TIFFCoder().readMetadata(data).colorProfile == profile)
        let asStored = try TIFFCoder().decode(data, options: Self.ignore)
        #expect(asStored.pixels.bytes == pixels.bytes)
        let decoded = try TIFFCoder().decode(data, options: .default)
        let difference = ColorDifference(decoded.pixels, TestProfiles.reference(pixels, from: profile))
        #expect(difference.mean <= 0.5 && difference.p95 <= 1.0, "\(difference)")
        var preserve = DecodeOptions()
        preserve.colorManagement = .preserve
        #expect(try TIFFCoder().decode(data, options: preserve).colorProfile == profile)
        // Untagged TIFF: untouched.
        let plain = try TIFFTestWriter.write([TIFFTestPage(width: pixels.width, height: pixels.height, samples: rgb)])
        #expect(try TIFFCoder().decode(plain, options: .default).pixels.bytes == pixels.bytes)
    }
}

extension ContainerProfileTests {
    @Test("Given an AVIF with an ICC profile, when decoded, then it matches LittleCMS; .preserve keeps the profile")
    func avifProfile() throws {
        let profile = TestProfiles.profile(TestProfiles.displayP3)
        let source = Image(pixels: TestImages.pattern(), hasAlpha: false, colorProfile: profile)
        let data = try AVIFCoder().encode(source, format: .avif, options: EncodeOptions(quality: 0.9))
        #expect(try AVIFCoder().readMetadata(data).colorProfile == profile)
        let asStored = try AVIFCoder().decode(data, options: Self.ignore)
        let decoded = try AVIFCoder().decode(data, options: .default)
        let difference = ColorDifference(decoded.pixels, TestProfiles.reference(asStored.pixels, from: profile))
        #expect(difference.mean <= 0.5 && difference.p95 <= 1.0, "\(difference)")
        var preserve = DecodeOptions()
        preserve.colorManagement = .preserve
        #expect(try AVIFCoder().decode(data, options: preserve).colorProfile == profile)
        // Our own untagged AVIF (nclx sRGB or unspecified): untouched.
        let plain = try AVIFCoder().encode(Image(pixels: TestImages.pattern(), hasAlpha: false), format: .avif, options: EncodeOptions())
        #expect(try AVIFCoder().readMetadata(plain).colorProfile == nil)
        #expect(try AVIFCoder().decode(plain, options: .default).pixels.bytes == AVIFCoder().decode(plain, options: Self.ignore).pixels.bytes)
    }
}


extension ContainerProfileTests {
    /// `pixels` (opaque) as a lossless JPEG XL carrying `icc`.
    static func jxl(_ pixels: PixelBuffer, icc: Data) throws -> Data {
        let encoder = try #require(JxlEncoderCreate(nil))
        defer { JxlEncoderDestroy(encoder) }
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(pixels.width)
        info.ysize = UInt32(pixels.height)
        info.bits_per_sample = 8
        info.uses_original_profile = JXL_TRUE
        info.num_color_channels = 3
        try #require(JxlEncoderSetBasicInfo(encoder, &info) == JXL_ENC_SUCCESS)
        let iccSet = icc.withUnsafeBytes { JxlEncoderSetICCProfile(encoder, $0.bindMemory(to: UInt8.self).baseAddress, $0.count) }
        try #require(iccSet == JXL_ENC_SUCCESS)
        let settings = try #require(JxlEncoderFrameSettingsCreate(encoder, nil))
        try #require(JxlEncoderSetFrameLossless(settings, JXL_TRUE) == JXL_ENC_SUCCESS)
        var rgb = stride(from: 0, to: pixels.bytes.count, by: 4).flatMap { pixels.bytes[$0..<$0 + 3] }
        var format = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        let added = rgb.withUnsafeMutableBytes { JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
        try #require(added == JXL_ENC_SUCCESS)
        JxlEncoderCloseInput(encoder)
        var output = [UInt8](repeating: 0, count: 1 << 16)
        var written = 0
        while true {
            let status = output.withUnsafeMutableBufferPointer { buffer -> JxlEncoderStatus in
                var next = buffer.baseAddress.map { $0 + written }
                var available = buffer.count - written
                let status = JxlEncoderProcessOutput(encoder, &next, &available)
                written = buffer.count - available
                return status
            }
            if status == JXL_ENC_SUCCESS { break }
            try #require(status == JXL_ENC_NEED_MORE_OUTPUT)
            output += [UInt8](repeating: 0, count: output.count)
        }
        return Data(output[..<written])
    }

    @Test("Given a lossless JPEG XL with an Adobe RGB profile, when decoded, then it matches LittleCMS")
    func jxlProfile() throws {
        let profile = TestProfiles.profile(TestProfiles.adobeRGB)
        let pixels = TestImages.pattern()
        let data = try Self.jxl(pixels, icc: try #require(profile.iccData))
        #expect(try JXLCoder().readMetadata(data).colorProfile != nil)
        let asStored = try JXLCoder().decode(data, options: Self.ignore)
        #expect(asStored.pixels.bytes == pixels.bytes)
        let decoded = try JXLCoder().decode(data, options: .default)
        let difference = ColorDifference(decoded.pixels, TestProfiles.reference(pixels, from: profile))
        #expect(difference.mean <= 0.5 && difference.p95 <= 1.0, "\(difference)")
    }
}

extension ContainerProfileTests {
    /// `gif` with an `ICCRGBG1012` application extension holding `icc` after its global colour
    /// table.
    static func inserting(icc: Data, into gif: Data) -> Data {
        let flags = gif[gif.startIndex + 10]
        let tableBytes = flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0
        var block = Data([0x21, 0xFF, 11] + Array("ICCRGBG1012".utf8))
        var offset = icc.startIndex
        while offset < icc.endIndex {
            let length = min(255, icc.endIndex - offset)
            block.append(UInt8(length))
            block.append(icc[offset..<(offset + length)])
            offset += length
        }
        block.append(0)
        var out = Data(gif.prefix(13 + tableBytes))
        out.append(block)
        out.append(gif.dropFirst(13 + tableBytes))
        return out
    }

    @Test("Given a GIF with an ICCRGBG1012 profile, when decoded, then it matches LittleCMS")
    func gifProfile() throws {
        let profile = TestProfiles.profile(TestProfiles.proPhoto)
        let untagged = try GIFCoder().encode(Image(pixels: TestImages.pattern(), hasAlpha: false), format: .gif, options: EncodeOptions())
        let data = Self.inserting(icc: try #require(profile.iccData), into: untagged)
        #expect(try GIFCoder().readMetadata(data).colorProfile == profile)
        let asStored = try GIFCoder().decode(data, options: Self.ignore)
        #expect(asStored.pixels.bytes == (try GIFCoder().decode(untagged, options: .default)).pixels.bytes)
        let decoded = try GIFCoder().decode(data, options: .default)
        let difference = ColorDifference(decoded.pixels, TestProfiles.reference(asStored.pixels, from: profile))
        #expect(difference.mean <= 0.5 && difference.p95 <= 1.0, "\(difference)")
        // Frame by frame, through the animated source: the same pixels.
        #expect(try GIFCoder().makeAnimatedSource(data, options: .default).frame(at: 0).bytes == decoded.pixels.bytes)
    }
}
