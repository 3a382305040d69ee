/// What the markers of a JPEG before its first scan say: frame size (SOF), component count and
/// the EXIF orientation (`APP1`).
struct JPEGHeader {
    var width: Int
    var height: Int
    var components: Int
    var orientation: ImageOrientation

    /// Walks the marker segments up to the first start-of-frame. Bounded: every step advances at
    /// least two bytes. `nil` when there is no SOF before the first scan or the data ends first.
    static func scan(_ bytes: HeaderBytes) -> JPEGHeader? {
        guard bytes.u8(0) == 0xFF, bytes.u8(1) == 0xD8 else { return nil }
        var orientation = ImageOrientation.up
        var offset = 2
        while let prefix = bytes.u8(offset) {
            guard prefix == 0xFF else { return nil }
            guard let marker = bytes.u8(offset + 1) else { return nil }
            if marker == 0xFF {  // fill byte
                offset += 1
                continue
            }
            // Stand-alone markers carry no length.
            if marker == 0x01 || (0xD0...0xD8).contains(marker) {
                offset += 2
                continue
            }
            if marker == 0xD9 || marker == 0xDA { return nil }  // EOI or SOS before any SOF
            guard let length = bytes.u16be(offset + 2), length >= 2 else { return nil }
            let segment = offset + 4
            switch marker {
            case 0xC0...0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF:
                guard let height = bytes.u16be(segment + 1), let width = bytes.u16be(segment + 3),
                    let components = bytes.u8(segment + 5)
                else { return nil }
                return JPEGHeader(width: width, height: height, components: components, orientation: orientation)
            case 0xE1:
                if bytes.matches("Exif\0\0", at: segment), let exif = bytes.slice(segment + 6, length - 8) {
                    orientation = TIFFHeader.scan(exif)?.orientation ?? orientation
                }
            default:
                break
            }
            offset += 2 + length
        }
        return nil
    }
}
