// The gain-map metadata parsers (SPEC H-7): Ultra HDR's hdrgm XMP, ISO 21496-1's binary
// block, the MPF index, and the JPEG container walk that finds them.
import Foundation
import WebImageCodecs
import WebImageCore

extension FuzzTarget {
    /// Any bytes as a gain-map JPEG container, an XMP packet, an ISO 21496-1 block and an MPF
    /// index; whatever parses must describe a usable map.
    static let gainMapTarget = FuzzTarget(
        name: "gainmap",
        summary: "JPEGGainMapContainer.locate, GainMapXMP.parse, GainMapISO21496.parse and MPFIndex(tiff:) on any bytes",
        maxLength: 65536, dictionary: nil, usesImageCorpus: false,
        seeds: { gainMapSeeds },
        run: { data in
            if let container = try? JPEGGainMapContainer.locate(data) {
                if container.mapRange.lowerBound < 0 || container.mapRange.upperBound > data.count {
                    FuzzTarget.finding("the map range \(container.mapRange) lies outside \(data.count) bytes")
                }
                if (try? container.metadata.validate()) == nil { FuzzTarget.finding("the container's metadata does not validate") }
            }
            if let metadata = try? GainMapXMP.parse(data)?.metadata, (try? metadata.validate()) == nil {
                FuzzTarget.finding("XMP metadata that does not validate")
            }
            if let metadata = try? GainMapISO21496.parse(data) {
                if (try? metadata.validate()) == nil { FuzzTarget.finding("ISO metadata that does not validate") }
                _ = GainMapISO21496.serialize(metadata)
                _ = GainMapXMP.mapPacket(for: metadata)
            }
            if let index = try? MPFIndex(tiff: data), index.entries.isEmpty || index.entries.count > 64 {
                FuzzTarget.finding("an MPF index of \(index.entries.count) entries")
            }
        })

    static var gainMapSeeds: [(name: String, data: Data)] {
        let metadata = GainMapMetadata(
            channels: [.init(gainMapMin: -0.5, gainMapMax: 2, gamma: 2.2), .init(gainMapMin: 0, gainMapMax: 3), .init(gainMapMin: 0.1, gainMapMax: 1, gamma: 0.5)],
            alternateHeadroom: 2.5)
        var seeds: [(name: String, data: Data)] = [
            ("iso.bin", GainMapISO21496.serialize(metadata)),
            ("map.xmp", GainMapXMP.mapPacket(for: metadata)),
            ("primary.xmp", GainMapXMP.primaryPacket(gainMapLength: 4321)),
            ("mpf.bin", MPFIndex(entries: [.init(attribute: MPFIndex.primaryAttribute, size: 900, offset: 0), .init(attribute: 0, size: 300, offset: 880)]).tiffPayload()),
        ]
        let base = PixelBuffer(width: 8, height: 8, bytes: [UInt8](repeating: 128, count: 256))
        let map = GainMap(pixels: PixelBuffer(width: 2, height: 2, bytes: [UInt8](repeating: 200, count: 16)), channelCount: 3, metadata: metadata)
        if let jpeg = try? JPEGCoder().encode(Image(pixels: base, hasAlpha: false).replacing(gainMap: map), format: .jpeg, options: .default) {
            seeds.append(("ultrahdr.jpg", jpeg))
        }
        return seeds
    }
}
