import CHEIF
import Foundation

/// HEIF-family files with an embedded thumbnail, written in the test with libheif's own encoder
/// (x265 for HEIC, AOM for AVIF): the main image is a horizontal red ramp over blue, the
/// thumbnail (a `thmb` item) the same image shrunk by libheif to fit `thumbnailSide`.
public enum HEIFThumbnailFixture {
    /// What the fixture could not make.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The container and codec of a fixture.
    public enum Kind: Sendable {
        /// HEVC in HEIF (`.heic`).
        case heic
        /// AV1 in HEIF (`.avif`).
        case avif
    }

    /// Whether libheif can encode `kind` here.
    public static func canEncode(_ kind: Kind) -> Bool {
        _ = heif_init(nil)
        return heif_have_encoder_for_format(kind.compression) != 0
    }

    /// A `width`×`height` file of `kind` with one thumbnail fitting `thumbnailSide`×`thumbnailSide`.
    public static func make(_ kind: Kind, width: Int, height: Int, thumbnailSide: Int) throws -> Data {
        _ = heif_init(nil)
        guard let context = heif_context_alloc() else { throw Failure(description: "no libheif context") }
        defer { heif_context_free(context) }
        var encoder: OpaquePointer?
        try check(heif_context_get_encoder_for_format(context, kind.compression, &encoder))
        guard let encoder else { throw Failure(description: "no encoder") }
        defer { heif_encoder_release(encoder) }
        try check(heif_encoder_set_lossy_quality(encoder, 90))
        var image: OpaquePointer?
        try check(heif_image_create(Int32(width), Int32(height), heif_colorspace_RGB, heif_chroma_interleaved_RGB, &image))
        guard let image else { throw Failure(description: "no image") }
        defer { heif_image_release(image) }
        try check(heif_image_add_plane(image, heif_channel_interleaved, Int32(width), Int32(height), 8))
        var stride: Int32 = 0
        guard let plane = heif_image_get_plane(image, heif_channel_interleaved, &stride) else { throw Failure(description: "no plane") }
        for y in 0..<height {
            for x in 0..<width {
                let pixel = plane + y * Int(stride) + x * 3
                pixel[0] = UInt8(x * 255 / max(1, width - 1))
                pixel[1] = 0
                pixel[2] = 200
            }
        }
        var handle: OpaquePointer?
        try check(heif_context_encode_image(context, image, encoder, nil, &handle))
        guard let handle else { throw Failure(description: "no image handle") }
        defer { heif_image_handle_release(handle) }
        var thumbnail: OpaquePointer?
        try check(heif_context_encode_thumbnail(context, image, handle, encoder, nil, Int32(thumbnailSide), &thumbnail))
        if let thumbnail { heif_image_handle_release(thumbnail) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-heif-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try check(heif_context_write_to_file(context, file.path))
        return try Data(contentsOf: file)
    }

    private static func check(_ error: heif_error) throws {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "error \(error.code.rawValue)"
        throw Failure(description: "libheif: \(message)")
    }
}

extension HEIFThumbnailFixture.Kind {
    var compression: heif_compression_format { self == .heic ? heif_compression_HEVC : heif_compression_AV1 }
}
