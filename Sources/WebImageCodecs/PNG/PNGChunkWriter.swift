/// Appends PNG chunks (length, type, data, CRC) to a byte array.
struct PNGChunkWriter {
    private(set) var bytes: [UInt8]

    /// Starts a stream with the PNG signature (unless `signature` is `false`: chunks only),
    /// reserving `capacity` bytes.
    init(capacity: Int = 0, signature: Bool = true) {
        bytes = []
        bytes.reserveCapacity(capacity + 8)
        if signature { bytes.append(contentsOf: PNGChunkScanner.signature) }
    }

    /// Appends a chunk of `type` whose data is `data` (at most 2³¹−1 bytes).
    mutating func append(_ type: PNGChunkType, _ data: UnsafeRawBufferPointer) {
        appendUInt32(UInt32(truncatingIfNeeded: data.count))
        let typeBytes = type.bytes
        bytes.append(contentsOf: typeBytes)
        bytes.append(contentsOf: data)
        let crc = typeBytes.withUnsafeBytes { PNGCRC.chunk(type: $0, data: data) }
        appendUInt32(crc)
    }

    /// Appends a chunk of `type` whose data is `data`.
    mutating func append(_ type: PNGChunkType, _ data: [UInt8]) {
        data.withUnsafeBytes { append(type, $0) }
    }

    /// Appends bytes that already form complete chunks (copied verbatim).
    mutating func appendRaw(_ raw: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: raw)
    }

    private mutating func appendUInt32(_ value: UInt32) {
        bytes.append(contentsOf: [
            UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ])
    }
}

extension [UInt8] {
    /// Appends `value` big-endian.
    mutating func appendBigEndian(_ value: UInt32) {
        append(contentsOf: [
            UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
            UInt8(truncatingIfNeeded: value),
        ])
    }

    /// Appends `value` big-endian.
    mutating func appendBigEndian(_ value: UInt16) {
        append(contentsOf: [UInt8(value >> 8), UInt8(truncatingIfNeeded: value)])
    }
}
