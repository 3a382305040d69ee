/// What the chunks of a PNG before its first `IDAT` say (IHDR, acTL, tRNS, eXIf).
struct PNGHeader {
    var width: Int
    var height: Int
    var colorType: Int
    /// `acTL` num_frames, `nil` for a plain PNG.
    var frameCount: Int?
    /// `acTL` num_plays (0 = forever), `nil` for a plain PNG.
    var plays: Int?
    var hasTransparencyChunk = false
    var orientation: ImageOrientation = .up

    /// Walks the chunks up to the first `IDAT` (or the end of the data). Bounded: every step
    /// advances by at least 12 bytes. `nil` when the signature or `IHDR` is missing.
    static func scan(_ bytes: HeaderBytes) -> PNGHeader? {
        guard bytes.u32be(0) == 0x8950_4E47, bytes.u32be(4) == 0x0D0A_1A0A,
            bytes.matches("IHDR", at: 12), let width = bytes.u32be(16), let height = bytes.u32be(20),
            let colorType = bytes.u8(25)
        else { return nil }
        var header = PNGHeader(width: width, height: height, colorType: colorType)
        var offset = 8
        while let length = bytes.u32be(offset), let type = bytes.fourCC(offset + 4), length <= 0x7FFF_FFFF {
            let payload = offset + 8
            switch type {
            case "IDAT":
                return header
            case "acTL":
                header.frameCount = bytes.u32be(payload)
                header.plays = bytes.u32be(payload + 4)
            case "tRNS":
                header.hasTransparencyChunk = true
            case "eXIf":
                if let exif = bytes.slice(payload, length) {
                    header.orientation = TIFFHeader.scan(exif)?.orientation ?? .up
                }
            default:
                break
            }
            guard let next = HeaderBytes.advance(payload, by: length + 4) else { break }
            offset = next
        }
        return header
    }

    /// Whether the colour type or a `tRNS` chunk gives the image transparency.
    var hasAlpha: Bool { colorType == 4 || colorType == 6 || hasTransparencyChunk }
}
