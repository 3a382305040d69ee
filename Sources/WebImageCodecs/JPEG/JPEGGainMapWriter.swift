import Foundation
import WebImageCore

/// Writes a gain map into JPEG output (SPEC H-3) the way libultrahdr does, so that readers of
/// either standard find it:
///
/// - the primary image gets, after its JFIF segment, Ultra HDR's XMP (`hdrgm:Version` and a
///   container directory giving the map's length), ISO 21496-1's version block, and an MPF
///   index whose second entry points at the map;
/// - the gain-map image follows the primary's `EOI`, with its own XMP (`hdrgm:` values) and
///   ISO 21496-1 block.
///
/// The map's metadata bytes are written back as they were read
/// (``/WebImageCore/GainMap/encoded``); a form the source lacked is made from the parsed
/// values, so an ISO-only file gains the XMP and an XMP-only file the ISO block. A one-channel
/// map is written as a greyscale JPEG.
enum JPEGGainMapWriter {
    /// The quality the map is written at: the output's, but never below this.
    static let minimumMapQuality = 0.85

    /// `primary` (a complete JPEG of the base) followed by `map`, with the metadata above.
    /// - Throws: ``/WebImageCore/WebImageError/encodingFailed(reason:)`` when the map cannot be
    ///   encoded or a metadata segment does not fit in one segment.
    static func assemble(primary: Data, map: GainMap, quality: Double) throws -> Data {
        let mapQuality = max(quality, minimumMapQuality)
        var secondary = try JPEGCompression.compress(map.pixels, quality: mapQuality, grey: map.channelCount == 1)
        let mapXMP = map.encoded.xmp ?? GainMapXMP.mapPacket(for: map.metadata)
        let mapISO = map.encoded.iso21496 ?? GainMapISO21496.serialize(map.metadata)
        var mapSegments = try segment(0xE1, GainMapXMP.identifier, mapXMP)
        mapSegments.append(try segment(0xE2, GainMapISO21496.identifier, mapISO))
        secondary = insert(mapSegments, into: secondary)

        // The primary's new segments; the MPF index's size does not depend on its values, so
        // the offsets are known once everything before it is placed.
        let xmp = try segment(0xE1, GainMapXMP.identifier, GainMapXMP.primaryPacket(gainMapLength: secondary.count))
        let iso = try segment(0xE2, GainMapISO21496.identifier, map.encoded.primaryISO21496 ?? GainMapISO21496.versionBlock)
        let insertAt = afterJFIF(primary)
        let mpfLength = 4 + MPFIndex.identifier.count + MPFIndex.payloadLength(images: 2)
        let primarySize = primary.count + xmp.count + iso.count + mpfLength
        let tiffStart = insertAt + xmp.count + iso.count + 4 + MPFIndex.identifier.count
        let index = MPFIndex(entries: [
            .init(attribute: MPFIndex.primaryAttribute, size: primarySize, offset: 0),
            .init(attribute: MPFIndex.secondaryAttribute, size: secondary.count, offset: primarySize - tiffStart),
        ])
        let mpf = try segment(0xE2, MPFIndex.identifier, index.tiffPayload())
        var out = Data(capacity: primarySize + secondary.count)
        out.append(primary.prefix(insertAt))
        out.append(xmp)
        out.append(iso)
        out.append(mpf)
        out.append(primary.dropFirst(insertAt))
        out.append(secondary)
        return out
    }

    /// A marker segment: `FF marker`, length, `name`, `payload`.
    static func segment(_ marker: UInt8, _ name: [UInt8], _ payload: Data) throws -> Data {
        let length = 2 + name.count + payload.count
        guard length <= 65_535 else {
            throw WebImageError.encodingFailed(reason: "gain-map metadata of \(payload.count) bytes does not fit in one JPEG segment")
        }
        var out = Data([0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)])
        out.append(contentsOf: name)
        out.append(payload)
        return out
    }

    /// Where new segments go in `jpeg`: after SOI and a JFIF `APP0` right after it.
    static func afterJFIF(_ jpeg: Data) -> Int {
        let s = jpeg.startIndex
        guard jpeg.count >= 6, jpeg[s + 2] == 0xFF, jpeg[s + 3] == 0xE0 else { return 2 }
        let length = Int(jpeg[s + 4]) << 8 | Int(jpeg[s + 5])
        return 4 + length <= jpeg.count ? 4 + length : 2
    }

    static func insert(_ segments: Data, into jpeg: Data) -> Data {
        let at = afterJFIF(jpeg)
        var out = Data(jpeg.prefix(at))
        out.append(segments)
        out.append(jpeg.dropFirst(at))
        return out
    }
}
