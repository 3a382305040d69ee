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
            guard let range = exifTIFFRange(inJPEG: raw) else { return nil }
            let tiff = UnsafeRawBufferPointer(rebasing: raw[range])
            guard let thumbnail = thumbnailRange(inTIFF: tiff) else { return nil }
            return Data(raw[(range.lowerBound + thumbnail.lowerBound)..<(range.lowerBound + thumbnail.upperBound)])
        }
    }

    /// The range of the TIFF block of the first APP1 `Exif\0\0` segment before the first scan.
    static func exifTIFFRange(inJPEG b: UnsafeRawBufferPointer) -> Range<Int>? {
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]  // "Exif\0\0"
        var position = 2
        // Each iteration consumes at least one byte, so the loop is bounded by the data size.
        while position < b.count {
            guard b[position] == 0xFF else { return nil }
            while position < b.count, b[position] == 0xFF { position += 1 }
            guard position < b.count else { return nil }
            let marker = b[position]
            position += 1
            switch marker {
            case 0xD8, 0x01, 0xD0...0xD7: continue
            case 0xD9, 0xDA: return nil
            default: break
            }
            guard position + 2 <= b.count else { return nil }
            let length = Int(b[position]) << 8 | Int(b[position + 1])
            guard length >= 2, length <= b.count - position else { return nil }
            let bodyStart = position + 2, bodyEnd = position + length
            if marker == 0xE1, bodyEnd - bodyStart >= exifHeader.count,
                exifHeader.indices.allSatisfy({ b[bodyStart + $0] == exifHeader[$0] }) {
                return (bodyStart + exifHeader.count)..<bodyEnd
            }
            position = bodyEnd
        }
        return nil
    }

    /// The range, within the TIFF block `b`, of IFD1's JPEG thumbnail.
    static func thumbnailRange(inTIFF b: UnsafeRawBufferPointer) -> Range<Int>? {
        guard b.count >= 8 else { return nil }
        let littleEndian: Bool
        switch (b[0], b[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        func u16(_ offset: Int) -> Int? {
            guard offset >= 0, offset <= b.count - 2 else { return nil }
            let (a, c) = (Int(b[offset]), Int(b[offset + 1]))
            return littleEndian ? a | c << 8 : a << 8 | c
        }
        func u32(_ offset: Int) -> Int? {
            guard let first = u16(offset), let second = u16(offset + 2) else { return nil }
            return littleEndian ? first | second << 16 : first << 16 | second
        }
        /// The entries of the IFD at `offset` that fit in the block, and the next IFD's offset.
        func entries(at offset: Int) -> (first: Int, count: Int, next: Int?)? {
            guard offset >= 8, let declared = u16(offset) else { return nil }
            let count = min(declared, max(0, (b.count - offset - 2) / 12))
            return (offset + 2, count, u32(offset + 2 + declared * 12))
        }
        guard u16(2) == 42, let ifd0Offset = u32(4), let ifd0 = entries(at: ifd0Offset),
            let ifd1Offset = ifd0.next, ifd1Offset != 0, ifd1Offset != ifd0Offset, let ifd1 = entries(at: ifd1Offset)
        else { return nil }
        var start: Int?, length: Int?
        for index in 0..<ifd1.count {
            let entry = ifd1.first + index * 12
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
