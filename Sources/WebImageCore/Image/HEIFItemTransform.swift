/// A transformative property of a HEIF item (ISO/IEC 23008-12 §6.5.10–11), in the order
/// `ipma` associates it: readers apply the item's own to its decoded pixels.
public enum HEIFItemTransform: Sendable, Hashable {
    /// `irot`: a turn of `quarterTurns` × 90° anticlockwise (0…3).
    case rotation(quarterTurns: Int)
    /// `imir`: a mirroring, with the box's axis bit as stored.
    case mirror(axis: Int)

    /// The `irot` and `imir` properties `ipma` associates with `item` in the HEIF file `bytes`,
    /// in association order; empty when it has none or the boxes cannot be read. Bounded like
    /// every walk of `ISOBMFFHeader`.
    public static func transforms(of item: Int, in bytes: HeaderBytes) -> [HEIFItemTransform] {
        let top = ISOBMFFHeader.boxes(bytes, from: 0, to: bytes.count)
        guard let meta = top.first(where: { $0.type == "meta" }) else { return [] }
        let children = ISOBMFFHeader.boxes(bytes, from: meta.payload + 4, to: meta.end)
        guard let iprp = children.first(where: { $0.type == "iprp" }) else { return [] }
        let iprpChildren = ISOBMFFHeader.boxes(bytes, from: iprp.payload, to: iprp.end)
        guard let ipco = iprpChildren.first(where: { $0.type == "ipco" }), let ipma = iprpChildren.first(where: { $0.type == "ipma" })
        else { return [] }
        let properties = ISOBMFFHeader.boxes(bytes, from: ipco.payload, to: ipco.end)
        return ISOBMFFHeader.associations(bytes, ipma: ipma, item: item).compactMap { index in
            guard index >= 1, index <= properties.count else { return nil }
            let property = properties[index - 1]
            switch property.type {
            case "irot": return bytes.u8(property.payload).map { .rotation(quarterTurns: $0 & 3) }
            case "imir": return bytes.u8(property.payload).map { .mirror(axis: $0 & 1) }
            default: return nil
            }
        }
    }
}
