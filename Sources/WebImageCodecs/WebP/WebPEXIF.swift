import Foundation
import WebImageCore

/// The EXIF orientation of an extended (`VP8X`) WebP file, read from its RIFF chunks without
/// libwebp: the `VP8X` flags say whether an `EXIF` chunk exists, and the chunk holds a TIFF
/// block (some writers put the JPEG-style `Exif\0\0` prefix before it).
///
/// The walk is bounded by the data: every chunk size is checked against what remains, so a
/// hostile file can only end the walk early (orientation `.up`).
enum WebPEXIF {
    /// The `VP8X` flag bit saying the file carries an `EXIF` chunk.
    static let exifFlag: UInt8 = 0x08

    /// Whether `data` starts with a `VP8X` header whose flags announce EXIF metadata (readable
    /// from the first 21 bytes, before the image data arrives).
    static func announcesEXIF(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            let b = HeaderBytes(raw)
            return b.matches("RIFF", at: 0) && b.matches("WEBP", at: 8) && b.matches("VP8X", at: 12)
                && (b.u8(20) ?? 0) & Int(exifFlag) != 0
        }
    }

    /// The orientation in the file's `EXIF` chunk, or `.up` when there is none or it is
    /// unreadable.
    static func orientation(of data: Data) -> ImageOrientation {
        guard announcesEXIF(data) else { return .up }
        return data.withUnsafeBytes { raw -> ImageOrientation in
            let b = HeaderBytes(raw)
            var offset = 12
            while let size = b.u32le(offset + 4) {
                let payload = offset + 8
                guard let tiff = b.slice(payload, size) else { return .up }
                if b.matches("EXIF", at: offset) {
                    // Some writers put the JPEG-style "Exif\0\0" prefix before the TIFF block.
                    let prefixed = tiff.matches("Exif", at: 0) && tiff.u8(4) == 0 && tiff.u8(5) == 0
                    let block = prefixed ? UnsafeRawBufferPointer(rebasing: tiff.raw[6...]) : tiff.raw
                    return EXIFOrientation.orientation(fromTIFF: block) ?? .up
                }
                offset = payload + size + (size & 1)  // chunks are padded to an even size
            }
            return .up
        }
    }
}
