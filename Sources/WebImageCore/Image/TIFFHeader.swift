/// The first image file directory (IFD0) of a TIFF structure — a TIFF file, or the EXIF block
/// of a JPEG (`APP1`), PNG (`eXIf`) or WebP — read for width, height and orientation.
struct TIFFHeader {
    var width: Int?
    var height: Int?
    var orientation: ImageOrientation = .up

    /// At most this many IFD entries are read (IFD0 of real files has a few dozen).
    static let maxEntries = 4096

    /// Reads IFD0 in either byte order (`II` little-endian, `MM` big-endian). `nil` when the
    /// byte-order mark, the magic number 42 or the IFD offset is invalid.
    static func scan(_ bytes: HeaderBytes) -> TIFFHeader? {
        let bigEndian: Bool
        if bytes.matches("II", at: 0) {
            bigEndian = false
        } else if bytes.matches("MM", at: 0) {
            bigEndian = true
        } else {
            return nil
        }
        guard bytes.u16(2, bigEndian: bigEndian) == 42, let ifd = bytes.u32(4, bigEndian: bigEndian),
            let count = bytes.u16(ifd, bigEndian: bigEndian)
        else { return nil }
        var header = TIFFHeader()
        for index in 0..<min(count, maxEntries) {
            let entry = ifd + 2 + index * 12
            guard let tag = bytes.u16(entry, bigEndian: bigEndian), let type = bytes.u16(entry + 2, bigEndian: bigEndian)
            else { break }
            // SHORT (3) values sit in the first two bytes of the value field, LONG (4) fill it.
            let value: Int?
            switch type {
            case 3: value = bytes.u16(entry + 8, bigEndian: bigEndian)
            case 4: value = bytes.u32(entry + 8, bigEndian: bigEndian)
            default: value = nil
            }
            switch tag {
            case 0x0100: header.width = value
            case 0x0101: header.height = value
            case 0x0112: header.orientation = ImageOrientation(exifValue: value ?? 1)
            default: break
            }
        }
        return header
    }
}
