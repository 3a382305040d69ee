/// CRC-32 (ISO-HDLC, as PNG chunks and zlib use it), bit by bit: independent of any codec's
/// table, for tests that build or patch PNG chunks by hand.
public enum CRC32 {
    /// The CRC-32 of `bytes`.
    /// - Parameter bytes: the bytes, in order.
    /// - Returns: the checksum (initial value and final XOR `0xFFFFFFFF`, reflected polynomial `0xEDB88320`).
    public static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}
