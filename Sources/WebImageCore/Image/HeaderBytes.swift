/// Bounds-checked reads of integers from an encoded file's bytes, for the header parsers and
/// the coders (public so that coders in other modules need not write their own).
///
/// Every accessor returns `nil` instead of reading outside the buffer, so a parser built on it
/// cannot crash on truncated or hostile input. Offsets are plain `Int`s; callers advance them
/// with ``advance(_:by:)``, which reports overflow as `nil`.
public struct HeaderBytes {
    /// The bytes read from.
    public let raw: UnsafeRawBufferPointer

    /// A reader over `raw` (valid while `raw` is).
    public init(_ raw: UnsafeRawBufferPointer) {
        self.raw = raw
    }

    /// The number of bytes.
    public var count: Int { raw.count }

    /// Whether `length` bytes starting at `offset` lie inside the buffer.
    public func contains(_ offset: Int, _ length: Int) -> Bool {
        guard offset >= 0, length >= 0 else { return false }
        let (end, overflow) = offset.addingReportingOverflow(length)
        return !overflow && end <= raw.count
    }

    /// The byte at `offset`, or `nil` outside the buffer.
    public func u8(_ offset: Int) -> Int? {
        contains(offset, 1) ? Int(raw[offset]) : nil
    }

    /// A big-endian 16-bit value at `offset`, or `nil` outside the buffer.
    public func u16be(_ offset: Int) -> Int? {
        guard contains(offset, 2) else { return nil }
        return Int(raw[offset]) << 8 | Int(raw[offset + 1])
    }

    /// A little-endian 16-bit value at `offset`, or `nil` outside the buffer.
    public func u16le(_ offset: Int) -> Int? {
        guard contains(offset, 2) else { return nil }
        return Int(raw[offset + 1]) << 8 | Int(raw[offset])
    }

    /// A little-endian 24-bit value at `offset`, or `nil` outside the buffer.
    public func u24le(_ offset: Int) -> Int? {
        guard contains(offset, 3) else { return nil }
        return Int(raw[offset + 2]) << 16 | Int(raw[offset + 1]) << 8 | Int(raw[offset])
    }

    /// A big-endian 32-bit value at `offset`, or `nil` outside the buffer.
    public func u32be(_ offset: Int) -> Int? {
        guard contains(offset, 4) else { return nil }
        return Int(raw[offset]) << 24 | Int(raw[offset + 1]) << 16 | Int(raw[offset + 2]) << 8 | Int(raw[offset + 3])
    }

    /// A little-endian 32-bit value at `offset`, or `nil` outside the buffer.
    public func u32le(_ offset: Int) -> Int? {
        guard contains(offset, 4) else { return nil }
        return Int(raw[offset + 3]) << 24 | Int(raw[offset + 2]) << 16 | Int(raw[offset + 1]) << 8 | Int(raw[offset])
    }

    /// A big-endian 64-bit value at `offset`, or `nil` outside the buffer.
    public func u64be(_ offset: Int) -> UInt64? {
        guard let high = u32be(offset), let low = u32be(offset + 4) else { return nil }
        return UInt64(high) << 32 | UInt64(low)
    }

    /// A 16- or 32-bit unsigned integer in the given byte order.
    public func u16(_ offset: Int, bigEndian: Bool) -> Int? {
        bigEndian ? u16be(offset) : u16le(offset)
    }

    /// A 32-bit unsigned integer in the given byte order.
    public func u32(_ offset: Int, bigEndian: Bool) -> Int? {
        bigEndian ? u32be(offset) : u32le(offset)
    }

    /// Whether the bytes at `offset` spell `ascii`.
    public func matches(_ ascii: String, at offset: Int) -> Bool {
        let utf8 = ascii.utf8
        guard contains(offset, utf8.count) else { return false }
        var i = offset
        for byte in utf8 {
            if raw[i] != byte { return false }
            i += 1
        }
        return true
    }

    /// A four-character code at `offset` (box or chunk type), `nil` when out of bounds.
    public func fourCC(_ offset: Int) -> String? {
        guard contains(offset, 4) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: raw[offset..<offset + 4]), as: UTF8.self)
    }

    /// The bytes `offset..<offset+length` as a sub-buffer, `nil` when out of bounds.
    public func slice(_ offset: Int, _ length: Int) -> HeaderBytes? {
        guard contains(offset, length) else { return nil }
        return HeaderBytes(UnsafeRawBufferPointer(rebasing: raw[offset..<offset + length]))
    }

    /// `offset + length`, or `nil` on overflow or a negative length.
    public static func advance(_ offset: Int, by length: Int) -> Int? {
        guard length >= 0 else { return nil }
        let (sum, overflow) = offset.addingReportingOverflow(length)
        return overflow ? nil : sum
    }
}
