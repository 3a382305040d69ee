import Foundation

/// Reads the EXIF orientation tag (0x0112) from TIFF-structured EXIF data and from a JPEG's
/// APP1 `Exif\0\0` segment. Any codec whose container carries EXIF (JPEG APP1, PNG `eXIf`,
/// WebP `EXIF`) can use it.
///
/// The parser is bounded and overflow-safe: every offset read from the data is checked
/// against the block it points into, only IFD0 is read, and the number of entries visited is
/// capped by the bytes available. Hostile data yields `nil`, never a crash.
public enum EXIFOrientation {
    /// The orientation tag.
    static let orientationTag: UInt16 = 0x0112

    /// The orientation in a TIFF block (byte-order mark `II`/`MM`, magic 42, IFD0 offset, …),
    /// or `nil` when the block is malformed, has no orientation tag, or the value is outside 1…8.
    public static func orientation(fromTIFF data: Data) -> ImageOrientation? {
        data.withUnsafeBytes { orientation(fromTIFF: $0) }
    }

    /// The orientation in a TIFF block given as raw bytes (see the `Data` overload).
    public static func orientation(fromTIFF b: UnsafeRawBufferPointer) -> ImageOrientation? {
        guard b.count >= 8 else { return nil }
        let littleEndian: Bool
        switch (b[0], b[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        func u16(_ offset: Int) -> UInt16? {
            guard offset >= 0, offset <= b.count - 2 else { return nil }
            let (a, c) = (UInt16(b[offset]), UInt16(b[offset + 1]))
            return littleEndian ? a | c << 8 : a << 8 | c
        }
        func u32(_ offset: Int) -> UInt32? {
            guard let first = u16(offset), let second = u16(offset + 2) else { return nil }
            return littleEndian ? UInt32(first) | UInt32(second) << 16 : UInt32(first) << 16 | UInt32(second)
        }
        guard u16(2) == 42, let ifdOffset32 = u32(4) else { return nil }
        let ifdOffset = Int(ifdOffset32)
        guard ifdOffset >= 8, let entryCount = u16(ifdOffset) else { return nil }
        // Visit at most the entries that fit in the block.
        let available = (b.count - ifdOffset - 2) / 12
        let count = min(Int(entryCount), max(0, available))
        for index in 0..<count {
            let entry = ifdOffset + 2 + index * 12
            guard let tag = u16(entry), tag == orientationTag else { continue }
            guard let type = u16(entry + 2), let valueCount = u32(entry + 4), valueCount >= 1 else { return nil }
            let value: Int
            switch type {
            case 3:  // SHORT: the value sits in the first two bytes of the value field.
                guard let short = u16(entry + 8) else { return nil }
                value = Int(short)
            case 4:  // LONG: tolerated, some writers use it.
                guard let long = u32(entry + 8) else { return nil }
                value = Int(long)
            default:
                return nil
            }
            return ImageOrientation(rawValue: value)
        }
        return nil
    }

    /// The orientation in the first APP1 `Exif\0\0` segment of a JPEG, or `nil` when the data
    /// is not a JPEG, has no such segment before the first scan, or the tag is absent/invalid.
    public static func orientation(fromJPEG data: Data) -> ImageOrientation? {
        data.withUnsafeBytes { orientation(fromJPEG: $0) }
    }

    /// The orientation in a JPEG given as raw bytes (see the `Data` overload).
    public static func orientation(fromJPEG b: UnsafeRawBufferPointer) -> ImageOrientation? {
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]  // "Exif\0\0"
        var position = 2
        // Each iteration consumes at least one byte, so the loop is bounded by the data size.
        while position < b.count {
            guard b[position] == 0xFF else { return nil }
            // Skip fill bytes (any number of 0xFF before the marker code).
            while position < b.count, b[position] == 0xFF { position += 1 }
            guard position < b.count else { return nil }
            let marker = b[position]
            position += 1
            switch marker {
            case 0xD8, 0x01, 0xD0...0xD7:
                continue  // Standalone markers without a length.
            case 0xD9, 0xDA:
                return nil  // EOI or start of scan: the header is over.
            default:
                break
            }
            guard position + 2 <= b.count else { return nil }
            let length = Int(b[position]) << 8 | Int(b[position + 1])
            guard length >= 2, length <= b.count - position else { return nil }
            let bodyStart = position + 2
            let bodyEnd = position + length
            if marker == 0xE1, bodyEnd - bodyStart >= exifHeader.count {
                var isExif = true
                for (i, byte) in exifHeader.enumerated() where b[bodyStart + i] != byte {
                    isExif = false
                    break
                }
                if isExif {
                    let tiff = UnsafeRawBufferPointer(rebasing: b[(bodyStart + exifHeader.count)..<bodyEnd])
                    return orientation(fromTIFF: tiff)
                }
            }
            position = bodyEnd
        }
        return nil
    }
}
