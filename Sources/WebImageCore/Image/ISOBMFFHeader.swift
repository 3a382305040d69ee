/// The boxes of a HEIF-family file (HEIC, HEIF, AVIF) that give the primary image's size:
/// `ftyp` brands, `meta/pitm`, and the `ispe`/`clap`/`irot` properties that `meta/iprp/ipma`
/// associates with the primary item. A sequence without item properties falls back to the
/// first track's `tkhd`.
struct ISOBMFFHeader {
    var width: Int
    var height: Int
    var isSequence: Bool

    /// At most this many boxes are visited per container (only four fixed levels are entered),
    /// so hostile files cannot make the walk long.
    static let maxBoxesPerContainer = 1024

    /// One box: its type and the range of its payload.
    struct Box {
        var type: String
        var payload: Int
        var end: Int
    }

    /// The boxes directly inside `start..<end`. Bounded by ``maxBoxesPerContainer``.
    static func boxes(_ bytes: HeaderBytes, from start: Int, to end: Int) -> [Box] {
        var result: [Box] = []
        var offset = start
        while result.count < maxBoxesPerContainer, offset < end, let size32 = bytes.u32be(offset),
            let type = bytes.fourCC(offset + 4)
        {
            var header = 8
            var size = size32
            if size32 == 1 {
                guard let large = bytes.u64be(offset + 8), large <= UInt64(Int.max) else { break }
                size = Int(large)
                header = 16
            } else if size32 == 0 {
                size = end - offset
            }
            guard size >= header, let boxEnd = HeaderBytes.advance(offset, by: size) else { break }
            result.append(Box(type: type, payload: offset + header, end: min(boxEnd, end)))
            offset = boxEnd
        }
        return result
    }

    /// The major and compatible brands of the leading `ftyp` box.
    static func brands(_ bytes: HeaderBytes) -> [String] {
        guard bytes.matches("ftyp", at: 4), let size = bytes.u32be(0), size >= 16 else { return [] }
        var brands: [String] = []
        if let major = bytes.fourCC(8) { brands.append(major) }
        var offset = 16
        while offset + 4 <= min(size, 4096), let brand = bytes.fourCC(offset) {
            brands.append(brand)
            offset += 4
        }
        return brands
    }

    /// Whether the brands announce an image sequence (`avis` for AVIF, `msf1`/`hevs` for HEIF).
    static func isSequence(_ bytes: HeaderBytes) -> Bool {
        brands(bytes).contains { $0 == "avis" || $0 == "msf1" || $0 == "hevs" }
    }

    /// Reads the primary image's displayed size. `nil` when no size is found.
    static func scan(_ bytes: HeaderBytes) -> ISOBMFFHeader? {
        let top = boxes(bytes, from: 0, to: bytes.count)
        let sequence = isSequence(bytes)
        if let meta = top.first(where: { $0.type == "meta" }), let size = primaryItemSize(bytes, meta: meta) {
            return ISOBMFFHeader(width: size.width, height: size.height, isSequence: sequence)
        }
        if let moov = top.first(where: { $0.type == "moov" }), let size = trackSize(bytes, moov: moov) {
            return ISOBMFFHeader(width: size.width, height: size.height, isSequence: sequence)
        }
        return nil
    }

    /// `meta` is a full box: 4 bytes of version and flags precede its children.
    private static func primaryItemSize(_ bytes: HeaderBytes, meta: Box) -> PixelSize? {
        let children = boxes(bytes, from: meta.payload + 4, to: meta.end)
        var primary: Int?
        if let pitm = children.first(where: { $0.type == "pitm" }), let version = bytes.u8(pitm.payload) {
            primary = version == 0 ? bytes.u16be(pitm.payload + 4) : bytes.u32be(pitm.payload + 4)
        }
        guard let iprp = children.first(where: { $0.type == "iprp" }) else { return nil }
        let iprpChildren = boxes(bytes, from: iprp.payload, to: iprp.end)
        guard let ipco = iprpChildren.first(where: { $0.type == "ipco" }) else { return nil }
        let properties = boxes(bytes, from: ipco.payload, to: ipco.end)

        // Property indices (1-based) associated with the primary item, in order.
        var associated: [Int] = []
        if let primary, let ipma = iprpChildren.first(where: { $0.type == "ipma" }) {
            associated = associations(bytes, ipma: ipma, item: primary)
        }
        let chosen = associated.compactMap { index in
            index >= 1 && index <= properties.count ? properties[index - 1] : nil
        }

        var size: PixelSize?
        if let ispe = chosen.first(where: { $0.type == "ispe" }) {
            size = imageSpatialExtent(bytes, ispe)
        } else {
            // No usable association: the largest declared extent.
            size = properties.filter { $0.type == "ispe" }.compactMap { imageSpatialExtent(bytes, $0) }
                .max { $0.pixelCount < $1.pixelCount }
        }
        guard var result = size else { return nil }
        for property in chosen {
            switch property.type {
            case "clap":
                result = cleanAperture(bytes, property, within: result)
            case "irot":
                if let angle = bytes.u8(property.payload), angle & 1 == 1 {
                    result = PixelSize(width: result.height, height: result.width)
                }
            default:
                break
            }
        }
        return result
    }

    /// The property indices `ipma` associates with `item`. Bounded by the box's length.
    static func associations(_ bytes: HeaderBytes, ipma: Box, item: Int) -> [Int] {
        // Full box: version (1 byte), flags (3 bytes, big-endian; bit 0 = 16-bit indices).
        guard let version = bytes.u8(ipma.payload), let flags = bytes.u8(ipma.payload + 3),
            let entryCount = bytes.u32be(ipma.payload + 4)
        else { return [] }
        let wideIndices = flags & 1 != 0
        var offset = ipma.payload + 8
        for _ in 0..<min(entryCount, maxBoxesPerContainer * 64) {
            guard offset < ipma.end else { break }
            let itemID: Int?
            if version < 1 {
                itemID = bytes.u16be(offset)
                offset += 2
            } else {
                itemID = bytes.u32be(offset)
                offset += 4
            }
            guard let itemID, let count = bytes.u8(offset) else { break }
            offset += 1
            var indices: [Int] = []
            for _ in 0..<count {
                if wideIndices {
                    guard let value = bytes.u16be(offset) else { break }
                    indices.append(value & 0x7FFF)
                    offset += 2
                } else {
                    guard let value = bytes.u8(offset) else { break }
                    indices.append(value & 0x7F)
                    offset += 1
                }
            }
            if itemID == item { return indices }
        }
        return []
    }

    /// `ispe` (full box): image width and height, 32 bits each.
    private static func imageSpatialExtent(_ bytes: HeaderBytes, _ box: Box) -> PixelSize? {
        guard let width = bytes.u32be(box.payload + 4), let height = bytes.u32be(box.payload + 8) else { return nil }
        return PixelSize(width: width, height: height)
    }

    /// `clap`: the clean aperture as rationals; applied when it is a whole size within `size`.
    private static func cleanAperture(_ bytes: HeaderBytes, _ box: Box, within size: PixelSize) -> PixelSize {
        guard let widthN = bytes.u32be(box.payload), let widthD = bytes.u32be(box.payload + 4),
            let heightN = bytes.u32be(box.payload + 8), let heightD = bytes.u32be(box.payload + 12),
            widthD > 0, heightD > 0
        else { return size }
        let width = widthN / widthD
        let height = heightN / heightD
        guard width >= 1, height >= 1, width <= size.width, height <= size.height else { return size }
        return PixelSize(width: width, height: height)
    }

    /// The first track's `tkhd` width and height (16.16 fixed point, the last 8 bytes).
    private static func trackSize(_ bytes: HeaderBytes, moov: Box) -> PixelSize? {
        for trak in boxes(bytes, from: moov.payload, to: moov.end) where trak.type == "trak" {
            for tkhd in boxes(bytes, from: trak.payload, to: trak.end) where tkhd.type == "tkhd" {
                guard let width = bytes.u32be(tkhd.end - 8), let height = bytes.u32be(tkhd.end - 4),
                    width >> 16 > 0, height >> 16 > 0
                else { return nil }
                return PixelSize(width: width >> 16, height: height >> 16)
            }
        }
        return nil
    }
}
