import CHEIF
import Foundation
import Testing
import WebImageCodecs
import WebImageCore

/// 10-bit HEIC decoded to RGBA16 when asked (SPEC H-1).
@Suite("High bit depth: HEIC 10")
struct HighBitDepthHEICTests {
    static let width = 64, height = 32

    /// A smooth 10-bit ramp, grey (3 codes a pixel).
    static func code(x: Int, y: Int) -> UInt16 { UInt16(x * 15 + y) }

    /// The ramp as a lossy 10-bit HEIC with CICP `primaries`/`transfer`, written by libheif (x265).
    static func heic10(primaries: UInt16, transfer: UInt16) throws -> Data {
        try #require(heif_have_encoder_for_format(heif_compression_HEVC) != 0, "libheif has no HEVC encoder")
        let context = try #require(heif_context_alloc())
        defer { heif_context_free(context) }
        var imagePointer: OpaquePointer?
        try HEICTestWriter.check(heif_image_create(Int32(width), Int32(height), heif_colorspace_RGB, heif_chroma_interleaved_RRGGBB_LE, &imagePointer))
        let image = try #require(imagePointer)
        defer { heif_image_release(image) }
        try HEICTestWriter.check(heif_image_add_plane(image, heif_channel_interleaved, Int32(width), Int32(height), 10))
        var stride: Int32 = 0
        let plane = try #require(heif_image_get_plane(image, heif_channel_interleaved, &stride))
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 {
                    let offset = y * Int(stride) + (x * 3 + c) * 2
                    let v = code(x: x, y: y)
                    plane[offset] = UInt8(v & 0xFF)
                    plane[offset + 1] = UInt8(v >> 8)
                }
            }
        }
        let nclx = try #require(heif_nclx_color_profile_alloc())
        defer { heif_nclx_color_profile_free(nclx) }
        try HEICTestWriter.check(heif_nclx_color_profile_set_color_primaries(nclx, primaries))
        try HEICTestWriter.check(heif_nclx_color_profile_set_transfer_characteristics(nclx, transfer))
        try HEICTestWriter.check(heif_nclx_color_profile_set_matrix_coefficients(nclx, 9))
        nclx.pointee.full_range_flag = 1
        try HEICTestWriter.check(heif_image_set_nclx_color_profile(image, nclx))
        let options = try #require(heif_encoding_options_alloc())
        defer { heif_encoding_options_free(options) }
        options.pointee.output_nclx_profile = nclx
        options.pointee.macOS_compatibility_workaround_no_nclx_profile = 0
        var encoderPointer: OpaquePointer?
        try HEICTestWriter.check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoderPointer))
        let encoder = try #require(encoderPointer)
        defer { heif_encoder_release(encoder) }
        try HEICTestWriter.check(heif_encoder_set_lossy_quality(encoder, 95))
        try HEICTestWriter.check(heif_context_encode_image(context, image, encoder, options, nil))
        let sink = HEICTestWriter.Sink()
        var writer = heif_writer()
        writer.writer_api_version = 1
        writer.write = { _, data, size, userdata in
            let sink = Unmanaged<HEICTestWriter.Sink>.fromOpaque(userdata!).takeUnretainedValue()
            sink.data.append(data!.assumingMemoryBound(to: UInt8.self), count: size)
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        }
        try withExtendedLifetime(sink) {
            try HEICTestWriter.check(heif_context_write(context, &writer, Unmanaged.passUnretained(sink).toOpaque()))
        }
        return sink.data
    }

    @Test("Given a 10-bit PQ HEIC, when decoded with rgba16, then it is RGBA16 near the 10-bit codes with CICP 9/16 kept")
    func decodes() throws {
        let data = try Self.heic10(primaries: 9, transfer: 16)
        var options = DecodeOptions()
        options.preferredPixelFormat = .rgba16
        let image = try HEIFCoder().decode(data, options: options)
        #expect(image.pixels.format == .rgba16)
        guard case .cicp(let cicp)? = image.colorProfile?.kind else {
            Issue.record("no CICP description: \(String(describing: image.colorProfile))")
            return
        }
        #expect(cicp.colorPrimaries == 9 && cicp.transferCharacteristics == 16)
        var worst = 0
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let s = image.pixels.sample16(x: x, y: y)
                let expected = Int(PixelFormat.widen(Self.code(x: x, y: y), bits: 10))
                worst = max(worst, abs(Int(s[1]) - expected))
                #expect(s[3] == 65_535)
            }
        }
        // Lossy 4:2:0 HEVC: near, not exact (a few 10-bit codes on a smooth ramp).
        #expect(worst <= 64 * 16, "off by \(worst)")
        #expect(image.pixels.withSamples16 { $0.filter { $0 % 257 != 0 }.count } > Self.width * Self.height)
        let sdr = try HEIFCoder().decode(data, options: .default)
        #expect(sdr.pixels.format == .rgba8 && sdr.colorProfile == nil)
    }
}
