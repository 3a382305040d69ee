import WebImage

extension GeometryPlan {
    /// `crop_aspect_ratio`: the `crop` area's `size` corrected to `ratio` (width ÷ height) —
    /// the longer side reduced, or with `enlarge` the shorter side enlarged and then, past the
    /// `source`'s size, both reduced to fit keeping the ratio. The crop's gravity is not
    /// changed (imgproxy's rule). `ratio` 0 = unchanged.
    static func correcting(_ size: PixelSize, toAspectRatio ratio: Double, enlarge: Bool, within source: PixelSize) -> PixelSize {
        guard ratio > 0 else { return size }
        var width = Double(size.width), height = Double(size.height)
        if enlarge {
            if width / height < ratio { width = height * ratio } else { height = width / ratio }
            if width > Double(source.width) { (width, height) = (Double(source.width), Double(source.width) / ratio) }
            if height > Double(source.height) { (width, height) = (Double(source.height) * ratio, Double(source.height)) }
        } else if width / height > ratio {
            width = height * ratio
        } else {
            height = width / ratio
        }
        return PixelSize(
            width: min(source.width, max(1, Int(width.rounded()))), height: min(source.height, max(1, Int(height.rounded()))))
    }
}
