/// What a header read tells about an image's gain map, without decoding it: what `/info` and
/// `webimage info` report as `hdr`.
public struct GainMapSummary: Sendable, Hashable {
    /// The map's stored size in pixels.
    public var pixelSize: PixelSize
    /// 1 (grey) or 3 channels.
    public var channelCount: Int
    /// The HDR rendition's headroom over SDR white, linear (``GainMapMetadata/headroom``).
    public var headroom: Double
    /// The parsed values.
    public var metadata: GainMapMetadata

    public init(pixelSize: PixelSize, channelCount: Int, metadata: GainMapMetadata) {
        self.pixelSize = pixelSize
        self.channelCount = channelCount
        self.headroom = metadata.headroom
        self.metadata = metadata
    }
}
