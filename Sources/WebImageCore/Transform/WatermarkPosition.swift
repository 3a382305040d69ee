/// Where ``WatermarkTransformer`` puts its watermark, with imgproxy's names as raw values.
public enum WatermarkPosition: String, Sendable, Hashable, CaseIterable {
    /// Centred (imgproxy's default).
    case center = "ce"
    /// Top edge, centred across.
    case north = "no"
    /// Bottom edge, centred across.
    case south = "so"
    /// Right edge, centred down.
    case east = "ea"
    /// Left edge, centred down.
    case west = "we"
    /// Top-right corner.
    case northEast = "noea"
    /// Top-left corner.
    case northWest = "nowe"
    /// Bottom-right corner.
    case southEast = "soea"
    /// Bottom-left corner.
    case southWest = "sowe"
    /// Tiled over the whole image, the grid centred; the offsets are the gaps between tiles.
    case replicate = "re"
}
