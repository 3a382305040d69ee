import Foundation

/// Finds the thumbnail a camera embeds in a JPEG's EXIF (APP1 `Exif\0\0`): IFD1's
/// `JPEGInterchangeFormat` (0x0201, the offset from the TIFF header) and
/// `JPEGInterchangeFormatLength` (0x0202), a complete JPEG file of its own.
///
/// Bounded like ``EXIFOrientation``: every offset read is checked against the block it points
/// into and the entries visited are capped by the bytes available; hostile data yields `nil`.
public enum EXIFThumbnail {
    /// The bytes of the JPEG thumbnail embedded in `data`'s EXIF, or `nil` when `data` is not
    /// a JPEG, has no EXIF before its first scan, no IFD1 thumbnail, or one that does not start
    /// with a JPEG start-of-image marker.
    public static func jpeg(in data: Data) -> Data? {
        data.withUnsafeBytes { raw -> Data? in
            guard let range = TIFFBlock.exifRange(inJPEG: raw) else { return nil }
            let tiff = UnsafeRawBufferPointer(rebasing: raw[range])
            guard let thumbnail = thumbnailRange(inTIFF: tiff) else { return nil }
            return Data(raw[(range.lowerBound + thumbnail.lowerBound)..<(range.lowerBound + thumbnail.upperBound)])
        }
    }

    /// The range, within the TIFF block `b`, of IFD1's JPEG thumbnail.
    static func thumbnailRange(inTIFF b: UnsafeRawBufferPointer) -> Range<Int>? {
        guard let block = TIFFBlock(b), let ifd0Offset = block.firstDirectoryOffset,
            let ifd1Offset = block.directory(at: ifd0Offset)?.next, ifd1Offset != 0, ifd1Offset != ifd0Offset
        else { return nil }
        let u16 = block.u16, u32 = block.u32
        var start: Int?, length: Int?
        for entry in block.entries(at: ifd1Offset) {
            guard let tag = u16(entry), tag == 0x0201 || tag == 0x0202, let type = u16(entry + 2) else { continue }
            let value = type == 3 ? u16(entry + 8) : type == 4 ? u32(entry + 8) : nil
            if tag == 0x0201 { start = value } else { length = value }
        }
        guard let start, let length, length >= 4, start >= 8, start <= b.count - length,
            b[start] == 0xFF, b[start + 1] == 0xD8
        else { return nil }
        return start..<(start + length)
    }
}
