import WebImage

/// `/info`'s `hdr` object: `{"type":"gain_map","gain_map":{"width":…,"height":…,"channels":…,
/// "headroom":…}}` for a source with a usable gain map, `"pq"` or `"hlg"` for a source whose
/// colour description uses that transfer (CICP 16 or 18), `{"type":"none"}` otherwise, with
/// `gain_map_dropped` (kind and reason) when the source signals a map that cannot be used, and
/// `bit_depth` (bits per channel as stored) when the format's header says it.
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
    var bitDepth: Int?

    enum CodingKeys: String, CodingKey {
        case type
        case gainMap = "gain_map"
        case gainMapDropped = "gain_map_dropped"
        case bitDepth = "bit_depth"
    }

    /// The object for `metadata`, whose colour description is `profile` (the coder's, when the
    /// generic header reader found none).
    init(metadata: ImageMetadata, profile: ColorProfile? = nil) {
        bitDepth = metadata.bitDepth
        let transfer: UInt16? = if case .cicp(let cicp)? = (profile ?? metadata.colorProfile)?.kind { cicp.transferCharacteristics } else { nil }
        if let map = metadata.gainMap {
            type = "gain_map"
            gainMap = GainMapInfo(
                width: map.pixelSize.width, height: map.pixelSize.height, channels: map.channelCount,
                headroom: (map.headroom * 1000).rounded() / 1000)
        } else if transfer == 16 {
            type = "pq"
        } else if transfer == 18 {
            type = "hlg"
        } else {
            type = "none"
        }
        gainMapDropped = metadata.gainMapIssue.map { Dropped(kind: $0.kind.rawValue, reason: $0.reason) }
    }
}
