import Foundation

/// The binary gain-map metadata of ISO 21496-1, as JPEG carries it in `APP2` segments named
/// `urn:iso:std:iso:ts:21496:-1` (and AVIF/HEIF in `tmap` items).
///
/// Layout (big-endian): `minimum_version` u16, `writer_version` u16; a primary image's block
/// stops there. A gain map's block goes on with a flags byte (bit 7 multi-channel, bit 6 use the
/// base colour space, bit 2 backward direction, i.e. the base is HDR, bit 3 one common
/// denominator), then the headrooms and, per channel (1 or 3), gain-map minimum, maximum,
/// gamma, base offset and alternate offset, each a fraction: with the common denominator, one
/// u32 denominator first and a numerator per value; otherwise numerator and denominator pairs.
/// Headrooms and gamma are unsigned, the rest signed. Only minimum version 0 is defined; a
/// reader refuses higher ones.
public enum GainMapISO21496 {
    /// The segment name, with its terminating zero.
    public static let identifier = Array("urn:iso:std:iso:ts:21496:-1".utf8) + [0]

    /// The version block a primary image carries (minimum and writer version 0).
    public static let versionBlock = Data([0, 0, 0, 0])

    /// The minimum version in a primary image's block (its first two bytes).
    /// - Throws: ``GainMapIssue`` (``GainMapIssue/Kind/metadata``) for fewer than 4 bytes.
    public static func minimumVersion(_ block: Data) throws(GainMapIssue) -> Int {
        var reader = Reader(block)
        guard let version = reader.u16(), reader.u16() != nil else {
            throw GainMapIssue(.metadata, "the ISO 21496-1 version block has \(block.count) bytes, fewer than 4")
        }
        return Int(version)
    }

    /// Parses a gain map's full block.
    /// - Throws: ``GainMapIssue`` (``GainMapIssue/Kind/metadata``) for a truncated block, an
    ///   unsupported minimum version, a zero denominator or values ``GainMapMetadata/validate()``
    ///   refuses.
    public static func parse(_ block: Data) throws(GainMapIssue) -> GainMapMetadata {
        var r = Reader(block)
        func truncated() -> GainMapIssue { GainMapIssue(.metadata, "the ISO 21496-1 block is truncated (\(block.count) bytes)") }
        guard let minimumVersion = r.u16(), r.u16() != nil else { throw truncated() }
        guard minimumVersion == 0 else {
            throw GainMapIssue(.metadata, "ISO 21496-1 minimum version \(minimumVersion) is not supported (only 0)")
        }
        guard let flags = r.u8() else { throw truncated() }
        let channelCount = flags & 0x80 != 0 ? 3 : 1
        let common = flags & 0x08 != 0
        var commonDenominator: UInt32 = 1
        if common {
            guard let d = r.u32() else { throw truncated() }
            commonDenominator = d
        }
        func fraction(signed: Bool) throws(GainMapIssue) -> Double {
            guard let raw = r.u32() else { throw truncated() }
            let numerator = signed ? Double(Int32(bitPattern: raw)) : Double(raw)
            let denominator: UInt32
            if common {
                denominator = commonDenominator
            } else {
                guard let d = r.u32() else { throw truncated() }
                denominator = d
            }
            guard denominator != 0 else { throw GainMapIssue(.metadata, "an ISO 21496-1 fraction has denominator 0") }
            return numerator / Double(denominator)
        }
        let baseHeadroom = try fraction(signed: false)
        let alternateHeadroom = try fraction(signed: false)
        var channels: [GainMapMetadata.Channel] = []
        for _ in 0..<channelCount {
            let minimum = try fraction(signed: true)
            let maximum = try fraction(signed: true)
            let gamma = try fraction(signed: false)
            let baseOffset = try fraction(signed: true)
            let alternateOffset = try fraction(signed: true)
            channels.append(.init(gainMapMin: minimum, gainMapMax: maximum, gamma: gamma, baseOffset: baseOffset, alternateOffset: alternateOffset))
        }
        let metadata = GainMapMetadata(
            channels: channels, baseHeadroom: baseHeadroom, alternateHeadroom: alternateHeadroom,
            baseIsHDR: flags & 0x04 != 0, usesBaseColorSpace: flags & 0x40 != 0)
        try metadata.validate()
        return metadata
    }

    /// The full block for `metadata` (minimum and writer version 0, numerator/denominator pairs,
    /// each value its closest fraction with 32-bit terms).
    public static func serialize(_ metadata: GainMapMetadata) -> Data {
        var out = Data([0, 0, 0, 0])
        var flags: UInt8 = 0
        if metadata.channels.count == 3 { flags |= 0x80 }
        if metadata.usesBaseColorSpace { flags |= 0x40 }
        if metadata.baseIsHDR { flags |= 0x04 }
        out.append(flags)
        func put(_ value: UInt32) {
            out.append(contentsOf: [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)])
        }
        func fraction(_ value: Double, signed: Bool) {
            let f = Fraction(value, signed: signed)
            put(signed ? UInt32(bitPattern: Int32(f.numerator)) : UInt32(f.numerator))
            put(f.denominator)
        }
        fraction(metadata.baseHeadroom, signed: false)
        fraction(metadata.alternateHeadroom, signed: false)
        for c in metadata.channels {
            fraction(c.gainMapMin, signed: true)
            fraction(c.gainMapMax, signed: true)
            fraction(c.gamma, signed: false)
            fraction(c.baseOffset, signed: true)
            fraction(c.alternateOffset, signed: true)
        }
        return out
    }

    /// A value as numerator/denominator: the closest continued-fraction convergent whose terms
    /// fit in 32 bits (signed numerator for signed fields); out-of-range values are clamped.
    struct Fraction {
        var numerator: Int64
        var denominator: UInt32

        init(_ value: Double, signed: Bool) {
            let maxNumerator = signed ? Double(Int32.max) : Double(UInt32.max)
            let minNumerator = signed ? Double(Int32.min) : 0
            let v = value.isFinite ? min(max(value, minNumerator), maxNumerator) : 0
            // Continued fraction of |v|: h/k convergents until the terms would overflow.
            let negative = v < 0
            var x = abs(v)
            var (h0, h1): (Double, Double) = (0, 1)
            var (k0, k1): (Double, Double) = (1, 0)
            var best = (n: x.rounded(), d: 1.0)
            for _ in 0..<40 {
                let a = x.rounded(.down)
                let h2 = a * h1 + h0, k2 = a * k1 + k0
                guard h2 <= (negative ? -minNumerator : maxNumerator), k2 <= Double(UInt32.max), k2 >= 1 else { break }
                best = (h2, k2)
                (h0, h1, k0, k1) = (h1, h2, k1, k2)
                let rest = x - a
                if rest < 1e-12 { break }
                x = 1 / rest
            }
            numerator = Int64(negative ? -best.n : best.n)
            denominator = UInt32(best.d)
        }
    }

    /// Big-endian reads that return `nil` past the end.
    struct Reader {
        let bytes: [UInt8]
        var position = 0

        init(_ data: Data) { bytes = [UInt8](data) }

        mutating func u8() -> UInt8? {
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func u16() -> UInt16? {
            guard position + 2 <= bytes.count else { return nil }
            defer { position += 2 }
            return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
        }

        mutating func u32() -> UInt32? {
            guard position + 4 <= bytes.count else { return nil }
            defer { position += 4 }
            return (0..<4).reduce(UInt32(0)) { $0 << 8 | UInt32(bytes[position + $1]) }
        }
    }
}
