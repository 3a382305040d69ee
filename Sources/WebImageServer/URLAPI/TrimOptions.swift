import WebImage

/// The `trim` option: remove a uniform border.
public struct TrimOptions: Sendable, Hashable {
    /// Color distance (0…255 per channel) still counted as background.
    public var threshold: Double
    /// The background color; `nil` takes the top-left pixel's.
    public var color: RGBColor?
    /// Cut equal amounts from left and right / top and bottom.
    public var equalHorizontal, equalVertical: Bool
}
