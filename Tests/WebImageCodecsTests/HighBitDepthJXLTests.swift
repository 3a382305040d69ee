import CJXL
import Foundation
import Testing
import WebImageCodecs
import WebImageCore

/// 16-bit JPEG XL decoded to RGBA16 when asked (SPEC H-1).
@Suite("High bit depth: JPEG XL")
struct HighBitDepthJXLTests {
    static let width = 16, height = 10

    static let samples: [UInt16] = (0..<(width * height * 3)).map { i in UInt16(truncatingIfNeeded: i &* 40_503 &+ 7) }

    /// `samples` (RGB, 16 bits) as a lossless 16-bit JPEG XL in sRGB, written by libjxl.
    static func file() throws -> Data {
        let encoder = try #require(JxlEncoderCreate(nil))
        defer { JxlEncoderDestroy(encoder) }
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(width)
        info.ysize = UInt32(height)
        info.bits_per_sample = 16
        info.exponent_bits_per_sample = 0
        info.uses_original_profile = JXL_TRUE
        info.num_color_channels = 3
        try #require(JxlEncoderSetBasicInfo(encoder, &info) == JXL_ENC_SUCCESS)
        var color = JxlColorEncoding()
        JxlColorEncodingSetToSRGB(&color, JXL_FALSE)
        try #require(JxlEncoderSetColorEncoding(encoder, &color) == JXL_ENC_SUCCESS)
        let settings = try #require(JxlEncoderFrameSettingsCreate(encoder, nil))
        try #require(JxlEncoderSetFrameLossless(settings, JXL_TRUE) == JXL_ENC_SUCCESS)
        var pixels = samples
        var format = JxlPixelFormat(num_channels: 3, data_type: JXL_TYPE_UINT16, endianness: JXL_NATIVE_ENDIAN, align: 0)
        let added = pixels.withUnsafeMutableBytes { JxlEncoderAddImageFrame(settings, &format, $0.baseAddress, $0.count) }
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

    @Test("Given a lossless 16-bit JPEG XL, when decoded with rgba16, then every sample is the file's; by default RGBA8")
    func decodes() throws {
        let data = try Self.file()
        var options = DecodeOptions()
        options.preferredPixelFormat = .rgba16
        let image = try JXLCoder().decode(data, options: options)
        #expect(image.pixels.format == .rgba16)
        let decoded = image.pixels.withSamples16 { Array($0) }
        for i in 0..<(Self.width * Self.height) {
            #expect(Array(decoded[(i * 4)..<(i * 4 + 3)]) == Array(Self.samples[(i * 3)..<(i * 3 + 3)]))
            #expect(decoded[i * 4 + 3] == 65_535)
        }
        #expect(try JXLCoder().decode(data, options: .default).pixels.format == .rgba8)
        options.limits.maxDecodedBytes = Self.width * Self.height * 6
        #expect(throws: WebImageError.self) { try JXLCoder().decode(data, options: options) }
    }
}
