import WebImage

/// The gain map through the request's geometry (SPEC H-3): the frame steps' resample, extend
/// and padding done to the map at its own scale (``GainMap``'s geometry); blur, sharpen,
/// pixelate, background and watermark change pixel values and leave it as it is.
enum GainMapGeometry {
    /// `map`, over a decoded source of `source` pixels, carried to the result of `plan`.
    static func carry(_ map: GainMap, source: PixelSize, plan: GeometryPlan, reduction: ReducedSource?, resampler: Resampler) -> GainMap {
        let area = plan.sourceCrop, scaled = plan.scaledSize, keep = plan.resultCrop
        let fx = Double(area.width) / Double(scaled.width), fy = Double(area.height) / Double(scaled.height)
        var region = ResampleRegion(
            x: Double(area.x) + Double(keep.x) * fx, y: Double(area.y) + Double(keep.y) * fy,
            width: Double(keep.width) * fx, height: Double(keep.height) * fy)
        if let reduction { region = reduction.map(region) }
        let kept = PixelSize(width: keep.width, height: keep.height)
        var result = map.resampled(base: source, to: kept, region: region, resampler: resampler)
        var size = kept
        if let canvas = plan.canvas {
            result = result.extended(base: size, to: canvas.size, x: canvas.origin.x, y: canvas.origin.y, resampler: resampler)
            size = canvas.size
        }
        if let padding = plan.padding {
            let padded = PixelSize(width: size.width + padding.left + padding.right, height: size.height + padding.top + padding.bottom)
            result = result.extended(base: size, to: padded, x: padding.left, y: padding.top, resampler: resampler)
        }
        return result
    }
}
