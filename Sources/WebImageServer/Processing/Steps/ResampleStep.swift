import WebImage

extension FrameStep {
    /// The one resample of a frame: from the source crop's kept part straight to the kept size
    /// (a plain crop when no scaling is needed); from a reduced source, the same region mapped
    /// onto its pixels.
    static let resample = FrameStep(name: "resample") { pixels, plan, context in
        resample(pixels, plan: plan, resampler: context.resampler, reduction: context.reduction)
    }

    /// `pixels` cropped and scaled as `plan` says.
    static func resample(_ pixels: PixelBuffer, plan: GeometryPlan, resampler: Resampler, reduction: ReducedSource? = nil) -> PixelBuffer {
        let area = plan.sourceCrop, scaled = plan.scaledSize, keep = plan.resultCrop
        let fx = Double(area.width) / Double(scaled.width), fy = Double(area.height) / Double(scaled.height)
        if fx == 1, fy == 1, reduction == nil {
            let rect = PixelRect(x: area.x + keep.x, y: area.y + keep.y, width: keep.width, height: keep.height)
            if rect.x == 0, rect.y == 0, rect.width == pixels.width, rect.height == pixels.height { return pixels }
            return pixels.cropped(to: rect) ?? pixels
        }
        var region = ResampleRegion(
            x: Double(area.x) + Double(keep.x) * fx, y: Double(area.y) + Double(keep.y) * fy,
            width: Double(keep.width) * fx, height: Double(keep.height) * fy)
        if let reduction {
            region = reduction.map(region)
            // Reduced exactly to the kept size on whole pixels (4000×3000 at 1/8 → 500×375):
            // the decoder's block average is the result, as a plain crop.
            if region.width == Double(keep.width), region.height == Double(keep.height),
               region.x == region.x.rounded(), region.y == region.y.rounded() {
                let rect = PixelRect(x: Int(region.x), y: Int(region.y), width: keep.width, height: keep.height)
                if rect.x == 0, rect.y == 0, rect.width == pixels.width, rect.height == pixels.height { return pixels }
                if let cropped = pixels.cropped(to: rect) { return cropped }
            }
        }
        return resampler.resample(pixels, to: PixelSize(width: keep.width, height: keep.height), region: region)
    }
}
