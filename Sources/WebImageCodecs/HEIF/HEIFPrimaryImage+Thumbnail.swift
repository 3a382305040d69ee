import CHEIF
import Foundation
import WebImageCore

extension HEIFPrimaryImage {
    /// The largest thumbnail libheif lists for the primary image (`thmb` references), decoded
    /// with its own transforms applied, its size checked against `limits` first; `nil` when the
    /// primary image has none.
    /// - Throws: `badImageData` when the thumbnail cannot be read or decoded, `imageTooLarge`
    ///   over a limit.
    func decodeThumbnail(limits: DecodeLimits) throws -> (pixels: PixelBuffer, hasAlpha: Bool)? {
        let count = Int(heif_image_handle_get_number_of_thumbnails(handle))
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: min(count, 64))
        let listed = Int(ids.withUnsafeMutableBufferPointer {
            heif_image_handle_get_list_of_thumbnail_IDs(handle, $0.baseAddress, Int32($0.count))
        })
        var best: (handle: OpaquePointer, size: PixelSize)?
        defer { if let best { heif_image_handle_release(best.handle) } }
        for id in ids.prefix(max(0, min(listed, ids.count))) {
            var thumbnail: OpaquePointer?
            let error = heif_image_handle_get_thumbnail(handle, id, &thumbnail)
            guard error.code == heif_error_Ok, let thumbnail else { continue }
            let size = PixelSize(width: Int(heif_image_handle_get_width(thumbnail)), height: Int(heif_image_handle_get_height(thumbnail)))
            if size.width > 0, size.height > 0, size.width * size.height > (best.map { $0.size.width * $0.size.height } ?? 0) {
                if let best { heif_image_handle_release(best.handle) }
                best = (thumbnail, size)
            } else {
                heif_image_handle_release(thumbnail)
            }
        }
        guard let best else { return nil }
        try limits.check(canvas: best.size)
        let coded = PixelSize(width: Int(heif_image_handle_get_ispe_width(best.handle)), height: Int(heif_image_handle_get_ispe_height(best.handle)))
        if coded.width > 0, coded.height > 0 { try limits.check(canvas: coded) }
        let alpha = heif_image_handle_has_alpha_channel(best.handle) != 0
        return (try Self.decode(best.handle, size: best.size, hasAlpha: alpha), alpha)
    }
}
