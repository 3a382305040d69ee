import Foundation

/// The headroom of an iPhone photo's Apple HDR gain map, read from its EXIF maker note (SPEC H-2).
///
/// Apple keeps no headroom beside the map itself: the camera writes two values into its
/// maker note (an IFD after the header `Apple iOS\0`, big-endian, offsets from the note's
/// start), tag 33 (`0x0021`) and tag 48 (`0x0030`), and Apple's article "Applying Apple HDR
/// effect to your photos" turns them into stops:
///
/// | tag 33 | tag 48 | stops |
/// |---|---|---|
/// | < 1 | ≤ 0.01 | 1.8 − 20 · m48 |
/// | < 1 | > 0.01 | 1.601 − 0.101 · m48 |
/// | ≥ 1 | ≤ 0.01 | 3 − 70 · m48 |
/// | ≥ 1 | > 0.01 | 2.303 − 0.303 · m48 |
///
/// and the headroom is `2^max(stops, 0)`. Older files (iOS 14–16) often carry tag 33 alone: a
/// missing tag 48 is read as 0 (no reduction, the formula at its start) and a missing tag 33 as
/// 1; without either there is no headroom and the map is not used. The values may be stored as
/// rationals, floats or integers.
public struct AppleHDRHeadroom: Sendable, Hashable {
    /// Maker-note tag 33, if the note has it.
    public var tag33: Double?
    /// Maker-note tag 48, if the note has it.
    public var tag48: Double?

    public init(tag33: Double?, tag48: Double?) {
        self.tag33 = tag33
        self.tag48 = tag48
    }

    /// The map's full-strength gain over SDR white, linear (≥ 1), or `nil` without either tag.
    public var headroom: Double? {
        guard tag33 != nil || tag48 != nil else { return nil }
        let m33 = tag33 ?? 1, m48 = tag48 ?? 0
        guard m33.isFinite, m48.isFinite else { return nil }
        let stops: Double
        if m33 < 1 {
            stops = m48 <= 0.01 ? 1.8 - 20 * m48 : 1.601 - 0.101 * m48
        } else {
            stops = m48 <= 0.01 ? 3 - 70 * m48 : 2.303 - 0.303 * m48
        }
        return pow(2, max(stops, 0))
    }

    /// The two tags from an EXIF block as HEIF stores it (a 4-byte offset to the TIFF header,
    /// then the TIFF block) or a bare TIFF block; `nil` when there is no Apple maker note.
    public static func read(exif: Data) -> AppleHDRHeadroom? {
        exif.withUnsafeBytes { raw -> AppleHDRHeadroom? in
            if let block = TIFFBlock(raw) { return read(tiff: block) }
            guard raw.count >= 4 else { return nil }
            let skip = Int(raw[0]) << 24 | Int(raw[1]) << 16 | Int(raw[2]) << 8 | Int(raw[3])
            guard skip >= 0, skip <= raw.count - 8 else { return nil }
            guard let block = TIFFBlock(UnsafeRawBufferPointer(rebasing: raw[(4 + skip)...])) else { return nil }
            return read(tiff: block)
        }
    }

    /// The two tags from the maker note the EXIF directory of `block` points at.
    static func read(tiff block: TIFFBlock) -> AppleHDRHeadroom? {
        guard let ifd0 = block.firstDirectoryOffset else { return nil }
        guard let exifEntry = block.entries(at: ifd0).first(where: { block.u16($0) == 0x8769 }),
            let exifIFD = block.u32(exifEntry + 8)
        else { return nil }
        guard let note = block.entries(at: exifIFD).first(where: { block.u16($0) == 0x927C }),
            let count = block.u32(note + 4), count > 14, let start = block.u32(note + 8),
            start >= 0, start <= block.bytes.count - count
        else { return nil }
        return read(makerNote: UnsafeRawBufferPointer(rebasing: block.bytes[start..<(start + count)]))
    }

    /// The two tags of an Apple maker note (`Apple iOS\0`, version, `MM`, then one IFD).
    static func read(makerNote b: UnsafeRawBufferPointer) -> AppleHDRHeadroom? {
        let header: [UInt8] = Array("Apple iOS".utf8) + [0]
        guard b.count >= 16, header.indices.allSatisfy({ b[$0] == header[$0] }), b[12] == 0x4D, b[13] == 0x4D else { return nil }
        func u16(_ o: Int) -> Int? { o >= 0 && o <= b.count - 2 ? Int(b[o]) << 8 | Int(b[o + 1]) : nil }
        func u32(_ o: Int) -> UInt32? {
            guard let hi = u16(o), let lo = u16(o + 2) else { return nil }
            return UInt32(hi << 16 | lo)
        }
        guard let declared = u16(14) else { return nil }
        let entries = min(declared, (b.count - 16) / 12)
        var result = AppleHDRHeadroom(tag33: nil, tag48: nil)
        for index in 0..<entries {
            let entry = 16 + index * 12
            guard let tag = u16(entry), tag == 33 || tag == 48, let type = u16(entry + 2), let count = u32(entry + 4), count >= 1
            else { continue }
            let value = number(type: type, at: entry + 8, offset: u32(entry + 8).map(Int.init), u16: u16, u32: u32)
            if tag == 33 { result.tag33 = value } else { result.tag48 = value }
        }
        return result.tag33 == nil && result.tag48 == nil ? nil : result
    }

    /// A TIFF value of `type` whose 4-byte field is at `field` (pointing at `offset` when the
    /// value does not fit in it).
    private static func number(type: Int, at field: Int, offset: Int?, u16: (Int) -> Int?, u32: (Int) -> UInt32?) -> Double? {
        switch type {
        case 3: return u16(field).map(Double.init)
        case 8: return u16(field).map { Double(Int16(truncatingIfNeeded: $0)) }
        case 4: return u32(field).map(Double.init)
        case 9: return u32(field).map { Double(Int32(bitPattern: $0)) }
        case 11: return u32(field).map { Double(Float(bitPattern: $0)) }
        case 5, 10:
            guard let offset, let n = u32(offset), let d = u32(offset + 4), d != 0 else { return nil }
            return type == 5 ? Double(n) / Double(d) : Double(Int32(bitPattern: n)) / Double(Int32(bitPattern: d))
        case 12:
            guard let offset, let hi = u32(offset), let lo = u32(offset + 4) else { return nil }
            return Double(bitPattern: UInt64(hi) << 32 | UInt64(lo))
        default: return nil
        }
    }
}
