/// CRC-32 as PNG defines it (ISO 3309 / ITU-T V.42, reflected polynomial 0xEDB88320), used to
/// check the chunks this module parses itself (APNG) and to write the chunks it builds.
///
/// Table-driven, eight bytes per step ("slicing by 8"): table `k` gives the CRC contribution
/// of a byte followed by `k` zero bytes, so eight lookups replace eight dependent steps.
enum PNGCRC {
    /// Eight 256-entry tables, flattened: entry `n` of table `k` is at `k * 256 + n`.
    private static let tables: [UInt32] = {
        var t = [UInt32](repeating: 0, count: 8 * 256)
        for n in 0..<256 {
            var c = UInt32(n)
            for _ in 0..<8 { c = (c & 1) != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
            t[n] = c
        }
        for k in 1..<8 {
            for n in 0..<256 {
                let previous = t[(k - 1) * 256 + n]
                t[k * 256 + n] = (previous >> 8) ^ t[Int(previous & 0xFF)]
            }
        }
        return t
    }()

    /// Continues a running CRC (start with `0xFFFF_FFFF`; finish by inverting).
    static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var c = crc
        tables.withUnsafeBufferPointer { t in
            var i = 0
            let count = bytes.count
            while i + 8 <= count {
                let low = c ^ (UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16
                    | UInt32(bytes[i + 3]) << 24)
                let b4 = Int(bytes[i + 4]), b5 = Int(bytes[i + 5]), b6 = Int(bytes[i + 6]), b7 = Int(bytes[i + 7])
                c = t[7 * 256 + Int(low & 0xFF)] ^ t[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ t[5 * 256 + Int((low >> 16) & 0xFF)] ^ t[4 * 256 + Int(low >> 24)]
                    ^ t[3 * 256 + b4] ^ t[2 * 256 + b5] ^ t[256 + b6] ^ t[b7]
                i += 8
            }
            while i < count {
                c = t[Int((c ^ UInt32(bytes[i])) & 0xFF)] ^ (c >> 8)
                i += 1
            }
        }
        return c
    }

    /// The CRC of a chunk: over its 4-byte type and its data.
    static func chunk(type: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer) -> UInt32 {
        update(update(0xFFFF_FFFF, type), data) ^ 0xFFFF_FFFF
    }
}
