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
        data.withUnsafeBytes { b in
            b.count >= 21 && fourCC(b, 0, is: "RIFF") && fourCC(b, 8, is: "WEBP") && fourCC(b, 12, is: "VP8X")
                && b[20] & exifFlag != 0
        }
    }

    /// The orientation in the file's `EXIF` chunk, or `.up` when there is none or it is
    /// unreadable.
    static func orientation(of data: Data) -> ImageOrientation {
        guard announcesEXIF(data) else { return .up }
        return data.withUnsafeBytes { b -> ImageOrientation in
            var offset = 12
            while offset <= b.count - 8 {
                let size = Int(b[offset + 4]) | Int(b[offset + 5]) << 8 | Int(b[offset + 6]) << 16 | Int(b[offset + 7]) << 24
                let payload = offset + 8
                guard size <= b.count - payload else { return .up }
                if fourCC(b, offset, is: "EXIF") {
                    var tiff = UnsafeRawBufferPointer(rebasing: b[payload..<payload + size])
                    if tiff.count >= 6, fourCC(tiff, 0, is: "Exif"), tiff[4] == 0, tiff[5] == 0 {
                        tiff = UnsafeRawBufferPointer(rebasing: tiff[6...])
                    }
                    return EXIFOrientation.orientation(fromTIFF: tiff) ?? .up
                }
                offset = payload + size + (size & 1)  // chunks are padded to an even size
            }
            return .up
        }
    }

    /// Whether the four bytes at `offset` spell `code` (ASCII; no allocation).
    private static func fourCC(_ b: UnsafeRawBufferPointer, _ offset: Int, is code: StaticString) -> Bool {
        guard offset >= 0, offset <= b.count - 4, code.utf8CodeUnitCount == 4 else { return false }
        let expected = UnsafeBufferPointer(start: code.utf8Start, count: 4)
        return (0..<4).allSatisfy { b[offset + $0] == expected[$0] }
    }
}
