import CHEIF
import Foundation
import Testing
import WebImageCore

/// HEIC files made at test time with libheif's HEVC encoder (x265), carrying a colour
/// description the way cameras and phones write it.
enum HEICTestWriter {
    /// A `colr` description to write: an ICC profile (`prof`), CICP code points (`nclx`), or both
    /// (two `colr` boxes, as an iPhone writes a Display P3 picture).
    struct Colour {
        var icc: Data?
        var nclx: (primaries: UInt16, transfer: UInt16, matrix: UInt16)?
    }

    /// Collects what `heif_context_write` hands over.
    final class Sink {
        var data = Data()
    }

    /// `pixels` (opaque RGBA8) as a lossy HEIC (quality 90) with `colour`.
    static func heic(_ pixels: PixelBuffer, colour: Colour) throws -> Data {
        try #require(heif_have_encoder_for_format(heif_compression_HEVC) != 0, "libheif has no HEVC encoder")
        let context = try #require(heif_context_alloc())
        defer { heif_context_free(context) }

        var imagePointer: OpaquePointer?
        try check(heif_image_create(Int32(pixels.width), Int32(pixels.height), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &imagePointer))
        let image = try #require(imagePointer)
        defer { heif_image_release(image) }
        try check(heif_image_add_plane(image, heif_channel_interleaved, Int32(pixels.width), Int32(pixels.height), 8))
        var stride: Int32 = 0
        let plane = try #require(heif_image_get_plane(image, heif_channel_interleaved, &stride))
        for y in 0..<pixels.height {
            for x in 0..<pixels.width {
                let s = (y * pixels.width + x) * 4
                let d = y * Int(stride) + x * 3
                plane[d] = pixels.bytes[s]
                plane[d + 1] = pixels.bytes[s + 1]
                plane[d + 2] = pixels.bytes[s + 2]
            }
        }

        let options = try #require(heif_encoding_options_alloc())
        defer { heif_encoding_options_free(options) }
        if let icc = colour.icc {
            try icc.withUnsafeBytes { try check(heif_image_set_raw_color_profile(image, "prof", $0.baseAddress, $0.count)) }
        }
        var nclxProfile: UnsafeMutablePointer<heif_color_profile_nclx>?
        defer { if let nclxProfile { heif_nclx_color_profile_free(nclxProfile) } }
        if let nclx = colour.nclx {
            let profile = try #require(heif_nclx_color_profile_alloc())
            nclxProfile = profile
            try check(heif_nclx_color_profile_set_color_primaries(profile, nclx.primaries))
            try check(heif_nclx_color_profile_set_transfer_characteristics(profile, nclx.transfer))
            try check(heif_nclx_color_profile_set_matrix_coefficients(profile, nclx.matrix))
            profile.pointee.full_range_flag = 1
            try check(heif_image_set_nclx_color_profile(image, profile))
            options.pointee.output_nclx_profile = profile
            options.pointee.save_two_colr_boxes_when_ICC_and_nclx_available = colour.icc == nil ? 0 : 1
            // libheif leaves the `nclx` box out by default (macOS Preview once refused files with it).
            options.pointee.macOS_compatibility_workaround_no_nclx_profile = 0
        }

        var encoderPointer: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, heif_compression_HEVC, &encoderPointer))
        let encoder = try #require(encoderPointer)
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, 90))
        try check(heif_context_encode_image(context, image, encoder, options, nil))

        let sink = Sink()
        var writer = heif_writer()
        writer.writer_api_version = 1
        writer.write = { _, data, size, userdata in
            let sink = Unmanaged<Sink>.fromOpaque(userdata!).takeUnretainedValue()
            sink.data.append(data!.assumingMemoryBound(to: UInt8.self), count: size)
            return heif_error(code: heif_error_Ok, subcode: heif_suberror_Unspecified, message: nil)
        }
        try withExtendedLifetime(sink) {
            try check(heif_context_write(context, &writer, Unmanaged.passUnretained(sink).toOpaque()))
        }
        return sink.data
    }

    static func check(_ error: heif_error) throws {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "?"
        Issue.record("libheif: \(message)")
        throw WebImageError.encodingFailed(reason: "libheif: \(message)")
    }
}
