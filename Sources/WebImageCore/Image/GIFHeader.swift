/// The structure of a GIF found by walking its blocks: the logical screen, the number of image
/// descriptors, the NETSCAPE loop count and whether any frame declares a transparent colour.
/// LZW data is skipped sub-block by sub-block, never decompressed.
struct GIFHeader {
    var width: Int
    var height: Int
    var frameCount = 0
    /// The NETSCAPE2.0 / ANIMEXTS1.0 loop count (0 = forever), `nil` when absent.
    var loopCount: Int?
    var hasTransparency = false
    /// Whether the walk reached the trailer (`;`) rather than the end of the data.
    var reachedTrailer = false

    /// Walks the blocks, stopping after `stopAfterFrames` image descriptors, at the trailer, at
    /// the end of the data or at an unknown block. Bounded: every step advances at least one
    /// byte. `nil` when the signature or logical screen descriptor is missing.
    static func scan(_ bytes: HeaderBytes, stopAfterFrames: Int = .max) -> GIFHeader? {
        guard bytes.matches("GIF87a", at: 0) || bytes.matches("GIF89a", at: 0),
            let width = bytes.u16le(6), let height = bytes.u16le(8), let screenFlags = bytes.u8(10)
        else { return nil }
        var header = GIFHeader(width: width, height: height)
        var offset = 13
        if screenFlags & 0x80 != 0 { offset += 3 << ((screenFlags & 7) + 1) }
        while header.frameCount < stopAfterFrames, let introducer = bytes.u8(offset) {
            switch introducer {
            case 0x2C:  // image descriptor
                guard let flags = bytes.u8(offset + 9) else { return header }
                offset += 10
                if flags & 0x80 != 0 { offset += 3 << ((flags & 7) + 1) }
                offset += 1  // LZW minimum code size
                header.frameCount += 1
                guard let next = skipSubBlocks(bytes, from: offset) else { return header }
                offset = next
            case 0x21:  // extension
                guard let label = bytes.u8(offset + 1) else { return header }
                offset += 2
                if label == 0xF9, bytes.u8(offset) == 4, let flags = bytes.u8(offset + 1), flags & 1 != 0 {
                    header.hasTransparency = true
                }
                if label == 0xFF, bytes.u8(offset) == 11,
                    bytes.matches("NETSCAPE2.0", at: offset + 1) || bytes.matches("ANIMEXTS1.0", at: offset + 1),
                    bytes.u8(offset + 12) == 3, bytes.u8(offset + 13) == 1, let loops = bytes.u16le(offset + 14)
                {
                    header.loopCount = loops
                }
                guard let next = skipSubBlocks(bytes, from: offset) else { return header }
                offset = next
            case 0x3B:  // trailer
                header.reachedTrailer = true
                return header
            default:
                return header
            }
        }
        return header
    }

    /// The offset just past the zero-length block that ends a run of sub-blocks, or `nil` when
    /// the data ends first.
    private static func skipSubBlocks(_ bytes: HeaderBytes, from start: Int) -> Int? {
        var offset = start
        while let size = bytes.u8(offset) {
            offset += 1 + size
            if size == 0 { return offset }
        }
        return nil
    }
}
