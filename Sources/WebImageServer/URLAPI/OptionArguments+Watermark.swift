import WebImage

extension OptionArguments {
    /// The largest watermark `scale` accepted (the watermark then fits inside ten times the
    /// result; its pixels are checked against the result limits too).
    static let maximumWatermarkScale = 10.0

    /// `padding:%top[:%right[:%bottom[:%left]]]` as imgproxy reads it: an empty or missing side
    /// takes its CSS value (right and bottom from top, left from right); `nil` when every side
    /// is 0.
    func padding() throws(ImageServiceError) -> PaddingOptions? {
        var sides = PaddingOptions(top: 0, right: 0, bottom: 0, left: 0)
        if nonEmpty(0) != nil {
            sides.top = try dimension(0)
            (sides.right, sides.bottom, sides.left) = (sides.top, sides.top, sides.top)
        }
        if nonEmpty(1) != nil {
            sides.right = try dimension(1)
            sides.left = sides.right
        }
        if nonEmpty(2) != nil { sides.bottom = try dimension(2) }
        if nonEmpty(3) != nil { sides.left = try dimension(3) }
        return sides.isEmpty ? nil : sides
    }

    /// `watermark:%opacity[:%position[:%x_offset[:%y_offset[:%scale]]]]`: opacity 0 … 1 (0 =
    /// none: `nil`), a position of ``WatermarkPosition``, offsets any finite numbers, scale
    /// 0 … ``maximumWatermarkScale``.
    func watermark() throws(ImageServiceError) -> WatermarkOptions? {
        try requireCount(1...5)
        let opacity = try double(0)
        guard (0...1).contains(opacity) else { throw bad("opacity must be from 0 to 1") }
        var options = WatermarkOptions(opacity: opacity)
        if let text = nonEmpty(1) {
            guard let position = WatermarkPosition(rawValue: text) else {
                throw bad("unknown position '\(text)' (ce, no, so, ea, we, noea, nowe, soea, sowe or re)")
            }
            options.position = position
        }
        if nonEmpty(2) != nil { options.xOffset = try double(2) }
        if nonEmpty(3) != nil { options.yOffset = try double(3) }
        if nonEmpty(4) != nil {
            let scale = try double(4)
            guard scale >= 0, scale <= Self.maximumWatermarkScale else {
                throw bad("scale must be from 0 to \(Int(Self.maximumWatermarkScale))")
            }
            options.scale = scale
        }
        return opacity > 0 ? options : nil
    }
}
