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
        guard let block = TIFFBlock(b), let ifd0 = block.firstDirectoryOffset else { return nil }
        for entry in block.entries(at: ifd0) where block.u16(entry) == Int(orientationTag) {
            guard let type = block.u16(entry + 2), let valueCount = block.u32(entry + 4), valueCount >= 1 else { return nil }
            let value: Int
            switch type {
            case 3:  // SHORT: the value sits in the first two bytes of the value field.
                guard let short = block.u16(entry + 8) else { return nil }
                value = short
            case 4:  // LONG: tolerated, some writers use it.
                guard let long = block.u32(entry + 8) else { return nil }
                value = long
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
        guard let range = TIFFBlock.exifRange(inJPEG: b) else { return nil }
        return orientation(fromTIFF: UnsafeRawBufferPointer(rebasing: b[range]))
    }
}
