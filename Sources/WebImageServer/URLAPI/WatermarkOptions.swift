import WebImage

/// The `watermark` (`wm`) option, `watermark:%opacity:%position:%x_offset:%y_offset:%scale`
/// (imgproxy's semantics): where and how the configured watermark image goes on the result.
public struct WatermarkOptions: Sendable, Hashable {
    /// 0 … 1, multiplied by the service's base opacity (`watermark-opacity`). An option with
    /// opacity 0 is no watermark.
    public var opacity: Double
    /// Where it goes; `WatermarkPosition.replicate` (`re`) tiles it.
    public var position: WatermarkPosition = .center
    /// Horizontal offset: pixels (scaled by the device-pixel ratio) when 1 or more in magnitude,
    /// else a fraction of the result's width. For `re`, the gap between tiles across.
    public var xOffset = 0.0
    /// Vertical offset: pixels (scaled by the device-pixel ratio) when 1 or more in magnitude,
    /// else a fraction of the result's height. For `re`, the gap between tiles down.
    public var yOffset = 0.0
    /// The watermark's size relative to the result (it fits inside `scale ×` the result's
    /// size); 0 = its own size.
    public var scale = 0.0

    /// A watermark at `opacity`, centred, at its own size.
    public init(opacity: Double) {
        self.opacity = opacity
    }

    /// The option's canonical text.
    var canonicalText: String { "wm:\(opacity):\(position.rawValue):\(xOffset):\(yOffset):\(scale)" }
}
