/// What the RIFF chunks of a WebP file say: canvas size, alpha, animation, frame and loop count.
struct WebPHeader {
    var width: Int
    var height: Int
    var hasAlpha: Bool
    var isAnimated = false
    /// Number of `ANMF` chunks of an animation, 1 for a still image.
    var frameCount = 1
    /// `ANIM` loop count (0 = forever), `nil` for a still image.
    var loopCount: Int?

    /// Whether the `VP8X` chunk's animation flag is set.
    static func hasAnimationFlag(_ bytes: HeaderBytes) -> Bool {
        guard isWebP(bytes), bytes.matches("VP8X", at: 12), let flags = bytes.u8(20) else { return false }
        return flags & 0x02 != 0
    }

    private static func isWebP(_ bytes: HeaderBytes) -> Bool {
        bytes.matches("RIFF", at: 0) && bytes.matches("WEBP", at: 8)
    }

    /// Reads the first chunk (`VP8 `, `VP8L` or `VP8X`); for an animation, walks the chunks to
    /// count frames. Bounded: every step advances at least 8 bytes. `nil` when malformed.
    static func scan(_ bytes: HeaderBytes) -> WebPHeader? {
        guard isWebP(bytes), let first = bytes.fourCC(12) else { return nil }
        let payload = 20
        switch first {
        case "VP8 ":
            // Frame tag (3 bytes, key frame when bit 0 is clear), start code 9D 01 2A, sizes.
            guard let tag = bytes.u8(payload), tag & 1 == 0,
                bytes.u8(payload + 3) == 0x9D, bytes.u8(payload + 4) == 0x01, bytes.u8(payload + 5) == 0x2A,
                let w = bytes.u16le(payload + 6), let h = bytes.u16le(payload + 8)
            else { return nil }
            return WebPHeader(width: w & 0x3FFF, height: h & 0x3FFF, hasAlpha: false)
        case "VP8L":
            guard bytes.u8(payload) == 0x2F, let bits = bytes.u32le(payload + 1) else { return nil }
            return WebPHeader(
                width: (bits & 0x3FFF) + 1, height: (bits >> 14 & 0x3FFF) + 1, hasAlpha: bits >> 28 & 1 != 0)
        case "VP8X":
            guard let flags = bytes.u8(payload), let w = bytes.u24le(payload + 4), let h = bytes.u24le(payload + 7)
            else { return nil }
            var header = WebPHeader(width: w + 1, height: h + 1, hasAlpha: flags & 0x10 != 0)
            if flags & 0x02 != 0 {
                header.isAnimated = true
                header.countFrames(bytes)
            }
            return header
        default:
            return nil
        }
    }

    /// Walks the chunks after `VP8X`, counting `ANMF` and reading the `ANIM` loop count.
    private mutating func countFrames(_ bytes: HeaderBytes) {
        var frames = 0
        var offset = 12
        while let type = bytes.fourCC(offset), let size = bytes.u32le(offset + 4) {
            if type == "ANIM" { loopCount = bytes.u16le(offset + 12) }
            if type == "ANMF" { frames += 1 }
            guard let next = HeaderBytes.advance(offset, by: 8 + size + (size & 1)) else { break }
            offset = next
        }
        frameCount = frames
    }
}
