/// CRC-32 as PNG defines it (ISO 3309 / ITU-T V.42, polynomial 0xEDB88320, reflected), used to
/// check the chunks this module parses itself (APNG) and to write the chunks it builds.
enum PNGCRC {
    /// The 256-entry table of the byte-wise algorithm.
    private static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 {
            c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1
        }
        return c
    }

    /// Continues a running CRC (start with `0xFFFF_FFFF`; finish by inverting).
    static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var c = crc
        table.withUnsafeBufferPointer { t in
            for byte in bytes {
                c = t[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8)
            }
        }
        return c
    }

    /// The CRC of a chunk: over its 4-byte type and its data.
    static func chunk(type: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer) -> UInt32 {
        update(update(0xFFFF_FFFF, type), data) ^ 0xFFFF_FFFF
    }
}
