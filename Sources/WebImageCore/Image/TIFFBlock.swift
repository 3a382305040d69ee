/// A TIFF-structured block (the body of EXIF data: byte-order mark `II`/`MM`, magic 42, the
/// first directory's offset, then directories of 12-byte entries), read with bounds checks.
///
/// Every read is checked against the block, so offsets taken from hostile data give `nil`,
/// never a crash; a directory's entries are capped by the bytes available after it. The
/// readers of single EXIF tags (``EXIFOrientation``, ``EXIFThumbnail``, ``EXIFCopyright``)
/// are built on it.
struct TIFFBlock {
    /// The block's bytes; valid while the caller's buffer is.
    let bytes: UnsafeRawBufferPointer
    /// Whether numbers are little-endian (`II`) rather than big-endian (`MM`).
    let littleEndian: Bool

    /// The block in `bytes`, or `nil` without a byte-order mark and the magic number 42.
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 8 else { return nil }
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): littleEndian = true
        case (0x4D, 0x4D): littleEndian = false
        default: return nil
        }
        self.bytes = bytes
        guard u16(2) == 42 else { return nil }
    }

    /// The 16-bit number at `offset`, `nil` outside the block.
    func u16(_ offset: Int) -> Int? {
        guard offset >= 0, offset <= bytes.count - 2 else { return nil }
        let (a, b) = (Int(bytes[offset]), Int(bytes[offset + 1]))
        return littleEndian ? a | b << 8 : a << 8 | b
    }

    /// The 32-bit number at `offset`, `nil` outside the block.
    func u32(_ offset: Int) -> Int? {
        guard let first = u16(offset), let second = u16(offset + 2) else { return nil }
        return littleEndian ? first | second << 16 : first << 16 | second
    }

    /// The offset of the first directory (IFD0).
    var firstDirectoryOffset: Int? { u32(4) }

    /// The directory at `offset`: the offset of its first entry, how many of its entries fit
    /// in the block, and the next directory's offset (`nil` when unreadable).
    func directory(at offset: Int) -> (first: Int, count: Int, next: Int?)? {
        guard offset >= 8, let declared = u16(offset) else { return nil }
        let count = min(declared, max(0, (bytes.count - offset - 2) / 12))
        return (offset + 2, count, u32(offset + 2 + declared * 12))
    }

    /// The offsets of the entries of the directory at `offset` that fit in the block.
    func entries(at offset: Int) -> [Int] {
        guard let directory = directory(at: offset) else { return [] }
        return (0..<directory.count).map { directory.first + $0 * 12 }
    }

    /// The range of the TIFF block of the first APP1 `Exif\0\0` segment of the JPEG in `b`
    /// before its first scan, or `nil` when `b` is not a JPEG or has none.
    static func exifRange(inJPEG b: UnsafeRawBufferPointer) -> Range<Int>? {
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return nil }
        let exifHeader: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0x00, 0x00]  // "Exif\0\0"
        var position = 2
        // Each iteration consumes at least one byte, so the loop is bounded by the data size.
        while position < b.count {
            guard b[position] == 0xFF else { return nil }
            // Fill bytes: any number of 0xFF before the marker code.
            while position < b.count, b[position] == 0xFF { position += 1 }
            guard position < b.count else { return nil }
            let marker = b[position]
            position += 1
            switch marker {
            case 0xD8, 0x01, 0xD0...0xD7: continue  // Standalone markers without a length.
            case 0xD9, 0xDA: return nil  // EOI or start of scan: the header is over.
            default: break
            }
            guard position + 2 <= b.count else { return nil }
            let length = Int(b[position]) << 8 | Int(b[position + 1])
            guard length >= 2, length <= b.count - position else { return nil }
            let bodyStart = position + 2, bodyEnd = position + length
            if marker == 0xE1, bodyEnd - bodyStart >= exifHeader.count,
                exifHeader.indices.allSatisfy({ b[bodyStart + $0] == exifHeader[$0] })
            {
                return (bodyStart + exifHeader.count)..<bodyEnd
            }
            position = bodyEnd
        }
        return nil
    }
}
