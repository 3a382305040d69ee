import WebImageCore

/// Reads the orientation tag (0x0112) from the TIFF structure of an `eXIf` chunk.
enum PNGEXIF {
    /// The orientation in `exif` (TIFF bytes: byte-order mark, 42, IFD0 offset), `.up` when
    /// absent or unreadable. Bounded: reads at most IFD0's entries, all range-checked.
    static func orientation(_ exif: UnsafeRawBufferPointer) -> ImageOrientation {
        guard exif.count >= 8 else { return .up }
        let bigEndian: Bool
        switch (exif[0], exif[1]) {
        case (0x4D, 0x4D): bigEndian = true
        case (0x49, 0x49): bigEndian = false
        default: return .up
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= exif.count else { return nil }
            return bigEndian ? Int(exif[at]) << 8 | Int(exif[at + 1]) : Int(exif[at + 1]) << 8 | Int(exif[at])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return bigEndian ? a << 16 | b : b << 16 | a
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return .up }
        for entry in 0..<count {
            let at = ifd + 2 + entry * 12
            guard let tag = u16(at) else { return .up }
            if tag == 0x0112 {
                // SHORT, count 1: the value sits in the first two bytes of the value field.
                guard u16(at + 2) == 3, let value = u16(at + 8) else { return .up }
                return ImageOrientation(exifValue: value)
            }
        }
        return .up
    }
}
