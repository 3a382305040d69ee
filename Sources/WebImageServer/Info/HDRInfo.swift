import WebImage

/// `/info`'s `hdr` object: `{"type":"gain_map","gain_map":{"width":…,"height":…,"channels":…,
/// "headroom":…}}` for a source with a usable gain map, `{"type":"none"}` otherwise, with
/// `gain_map_dropped` (kind and reason) when the source signals a map that cannot be used.
struct HDRInfo: Sendable, Encodable {
    struct GainMapInfo: Sendable, Encodable {
        var width: Int
        var height: Int
        var channels: Int
        /// The HDR rendition's headroom over SDR white (linear, e.g. 4 = two stops).
        var headroom: Double
    }

    struct Dropped: Sendable, Encodable {
        var kind: String
        var reason: String
    }

    var type: String
    var gainMap: GainMapInfo?
    var gainMapDropped: Dropped?

    enum CodingKeys: String, CodingKey {
        case type
        case gainMap = "gain_map"
        case gainMapDropped = "gain_map_dropped"
    }

    init(metadata: ImageMetadata) {
        if let map = metadata.gainMap {
            type = "gain_map"
            gainMap = GainMapInfo(
                width: map.pixelSize.width, height: map.pixelSize.height, channels: map.channelCount,
                headroom: (map.headroom * 1000).rounded() / 1000)
        } else {
            type = "none"
        }
        gainMapDropped = metadata.gainMapIssue.map { Dropped(kind: $0.kind.rawValue, reason: $0.reason) }
    }
}
