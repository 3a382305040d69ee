import Foundation

/// The Multi-Picture Format index (CIPA DC-007) in a JPEG's `APP2` `MPF\0` segment: where each
/// image of the file starts and how long it is. Ultra HDR and ISO 21496-1 JPEGs list the
/// primary image and the gain-map image in it.
///
/// The segment holds a TIFF structure (byte-order mark, IFD offset) whose first IFD has
/// `MPFVersion` (0xB000), `NumberOfImages` (0xB001) and `MPEntry` (0xB002): 16 bytes per image
/// with its attribute, size and offset. Offsets count from the TIFF header (the byte after
/// `MPF\0`); the first image's offset is 0. Every read is bounds-checked; counts are capped.
public struct MPFIndex: Sendable, Hashable {
    /// One image of the file.
    public struct Entry: Sendable, Hashable {
        /// The MP image attribute (flags and type; 0x030000 is a baseline primary image).
        public var attribute: UInt32
        /// Its size in bytes.
        public var size: Int
        /// Its offset from the TIFF header (0 for the first image).
        public var offset: Int

        public init(attribute: UInt32, size: Int, offset: Int) {
            self.attribute = attribute
            self.size = size
            self.offset = offset
        }
    }

    /// The `APP2` segment name.
    public static let identifier = Array("MPF".utf8) + [0]
    /// The most entries read (a file with a gain map has two).
    static let maxEntries = 64

    /// The images listed, in order.
    public var entries: [Entry]

    public init(entries: [Entry]) {
        self.entries = entries
    }

    /// Parses the segment payload after `MPF\0`.
    /// - Throws: ``GainMapIssue`` (``GainMapIssue/Kind/container``) for a malformed index.
    public init(tiff payload: Data) throws(GainMapIssue) {
        let b = [UInt8](payload)
        func fail(_ reason: String) -> GainMapIssue { GainMapIssue(.container, "MPF index: \(reason)") }
        guard b.count >= 8 else { throw fail("\(b.count) bytes, too short for a TIFF header") }
        let big: Bool
        switch (b[0], b[1]) {
        case (0x4D, 0x4D): big = true
        case (0x49, 0x49): big = false
        default: throw fail("no byte-order mark")
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= b.count else { return nil }
            return big ? Int(b[at]) << 8 | Int(b[at + 1]) : Int(b[at + 1]) << 8 | Int(b[at])
        }
        func u32(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= b.count else { return nil }
            let v = big
                ? Int(b[at]) << 24 | Int(b[at + 1]) << 16 | Int(b[at + 2]) << 8 | Int(b[at + 3])
                : Int(b[at + 3]) << 24 | Int(b[at + 2]) << 16 | Int(b[at + 1]) << 8 | Int(b[at])
            return v
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { throw fail("no readable IFD") }
        var imageCount: Int?
        var entryOffset: Int?
        var entryBytes = 0
        for index in 0..<min(count, 256) {
            let at = ifd + 2 + index * 12
            guard let tag = u16(at), let type = u16(at + 2), let n = u32(at + 4), let value = u32(at + 8) else {
                throw fail("IFD entry \(index) is truncated")
            }
            switch tag {
            case 0xB001:
                guard type == 4, n == 1 else { throw fail("NumberOfImages has type \(type), count \(n)") }
                imageCount = value
            case 0xB002:
                guard type == 7 else { throw fail("MPEntry has type \(type)") }
                entryOffset = value
                entryBytes = n
            default:
                continue
            }
        }
        guard let imageCount, let entryOffset else { throw fail("NumberOfImages or MPEntry is missing") }
        guard imageCount >= 1, imageCount <= Self.maxEntries, entryBytes == imageCount * 16 else {
            throw fail("\(imageCount) images in \(entryBytes) entry bytes")
        }
        var entries: [Entry] = []
        for index in 0..<imageCount {
            let at = entryOffset + index * 16
            guard let attribute = u32(at), let size = u32(at + 4), let offset = u32(at + 8) else {
                throw fail("entry \(index) lies outside the segment")
            }
            entries.append(Entry(attribute: UInt32(truncatingIfNeeded: attribute), size: size, offset: offset))
        }
        self.entries = entries
    }

    /// The segment payload (after `MPF\0`) for this index, big-endian, as libultrahdr writes it.
    public func tiffPayload() -> Data {
        var out = Data()
        func u16(_ v: Int) { out.append(contentsOf: [UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]) }
        func u32(_ v: Int) { out.append(contentsOf: [UInt8((v >> 24) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]) }
        out.append(contentsOf: [0x4D, 0x4D, 0x00, 0x2A])
        u32(8)
        let tags = 3
        u16(tags)
        let entriesAt = 8 + 2 + tags * 12 + 4
        u16(0xB000); u16(7); u32(4); out.append(contentsOf: Array("0100".utf8))
        u16(0xB001); u16(4); u32(1); u32(entries.count)
        u16(0xB002); u16(7); u32(entries.count * 16); u32(entriesAt)
        u32(0)  // no next IFD
        for entry in entries {
            u32(Int(entry.attribute)); u32(entry.size); u32(entry.offset); u16(0); u16(0)
        }
        return out
    }

    /// The payload's length for `count` images (the segment's size does not depend on the
    /// values, so a writer can place it before knowing the offsets).
    public static func payloadLength(images count: Int) -> Int {
        8 + 2 + 3 * 12 + 4 + count * 16
    }

    /// The attribute of a baseline primary image (as libultrahdr writes it).
    public static let primaryAttribute: UInt32 = 0x0003_0000
    /// The attribute of a secondary image of undefined type (what libultrahdr gives gain maps).
    public static let secondaryAttribute: UInt32 = 0x0000_0000
}
