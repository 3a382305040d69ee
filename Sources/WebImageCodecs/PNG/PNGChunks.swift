import WebImageCore

/// A PNG chunk type as its four ASCII bytes, big-endian in a `UInt32`.
struct PNGChunkType: Hashable, Sendable, CustomStringConvertible {
    let rawValue: UInt32

    init(rawValue: UInt32) { self.rawValue = rawValue }

    init(_ name: StaticString) {
        var value: UInt32 = 0
        name.withUTF8Buffer { for byte in $0.prefix(4) { value = value << 8 | UInt32(byte) } }
        rawValue = value
    }

    static let ihdr = PNGChunkType("IHDR")
    static let plte = PNGChunkType("PLTE")
    static let idat = PNGChunkType("IDAT")
    static let iend = PNGChunkType("IEND")
    static let trns = PNGChunkType("tRNS")
    static let exif = PNGChunkType("eXIf")
    static let actl = PNGChunkType("acTL")
    static let fctl = PNGChunkType("fcTL")
    static let fdat = PNGChunkType("fdAT")

    /// Critical chunks have an upper-case first letter (bit 5 of the first byte clear).
    var isCritical: Bool { rawValue & 0x2000_0000 == 0 }

    /// The type's four bytes in file order.
    var bytes: [UInt8] {
        [UInt8(rawValue >> 24), UInt8(truncatingIfNeeded: rawValue >> 16),
         UInt8(truncatingIfNeeded: rawValue >> 8), UInt8(truncatingIfNeeded: rawValue)]
    }

    var description: String { String(decoding: bytes, as: UTF8.self) }
}

/// One chunk found in a PNG stream, by position in the file's bytes.
struct PNGChunk: Sendable {
    let type: PNGChunkType
    /// Where the chunk starts (its length field).
    let start: Int
    /// The chunk's data.
    let data: Range<Int>
    /// The CRC stored after the data.
    let storedCRC: UInt32

    /// The whole chunk: length, type, data and CRC.
    var whole: Range<Int> { start..<(data.upperBound + 4) }

    /// Whether the stored CRC matches the chunk's type and data in `bytes` (the buffer the
    /// chunk was found in). Computed on demand: a header scan does not pay for it.
    func hasValidCRC(in bytes: UnsafeRawBufferPointer) -> Bool {
        let computed = PNGCRC.chunk(
            type: UnsafeRawBufferPointer(rebasing: bytes[(start + 4)..<data.lowerBound]),
            data: UnsafeRawBufferPointer(rebasing: bytes[data]))
        return computed == storedCRC
    }
}

/// Walks the chunks of a PNG stream without decoding anything.
enum PNGChunkScanner {
    /// The eight bytes every PNG starts with.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Whether `bytes` starts with the PNG signature.
    static func hasSignature(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 8 && zip(bytes.prefix(8), signature).allSatisfy { $0 == $1 }
    }

    /// Reads a big-endian `UInt32` at `offset` (the caller checked the bounds).
    static func uint32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16
            | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    /// Reads a big-endian `UInt16` at `offset` (the caller checked the bounds).
    static func uint16(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    /// The complete chunks of `bytes`, up to and including `IEND`. Stops quietly at the first
    /// chunk that does not fit in the data (a truncated file), or after the first chunk of type
    /// `stopType` when given.
    ///
    /// - Throws: `badImageData` when the signature is missing or a chunk length exceeds 2³¹−1.
    static func chunks(
        in bytes: UnsafeRawBufferPointer,
        stoppingAt stopType: PNGChunkType? = nil
    ) throws -> (chunks: [PNGChunk], isTruncated: Bool) {
        guard hasSignature(bytes) else {
            throw WebImageError.badImageData(reason: "not a PNG (signature missing)")
        }
        var result: [PNGChunk] = []
        var offset = 8
        // Every iteration advances by at least 12 bytes, so the loop is bounded by the data size.
        while offset + 12 <= bytes.count {
            let length = uint32(bytes, at: offset)
            guard length <= 0x7FFF_FFFF else {
                throw WebImageError.badImageData(reason: "PNG chunk length \(length) exceeds 2^31-1")
            }
            let type = PNGChunkType(rawValue: uint32(bytes, at: offset + 4))
            let dataStart = offset + 8
            let (dataEnd, overflow) = dataStart.addingReportingOverflow(Int(length))
            guard !overflow, dataEnd + 4 <= bytes.count else { return (result, true) }
            let chunk = PNGChunk(
                type: type, start: offset, data: dataStart..<dataEnd, storedCRC: uint32(bytes, at: dataEnd))
            result.append(chunk)
            offset = dataEnd + 4
            if type == .iend || type == stopType { return (result, false) }
        }
        return (result, true)
    }
}
