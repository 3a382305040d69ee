/// How ``ResizeTransformer`` fits an image into its target size.
public enum ResizeMode: String, Sendable, Hashable, CaseIterable {
    /// Stretch to exactly the target size (aspect ratio not kept).
    case fill
    /// Scale to fit inside the target size, keeping the aspect ratio. The output is the scaled
    /// size (at most the target, at least 1 pixel per side); nothing is padded.
    case aspectFit
    /// Scale to cover the target size, keeping the aspect ratio, and crop the centre: the
    /// output is exactly the target size.
    case aspectFill
}

/// Resizes every frame to a target pixel size (SPEC T-2) with a ``ResizeFilter``.
///
/// Key: `ResizeTransformer(size=(400,300),mode=aspectFit,filter=lanczos3)`.
/// Returns `nil` when the target has a side below 1 or exceeds the default pixel limit.
public struct ResizeTransformer: ImageTransformer {
    /// The target size in pixels.
    public let size: PixelSize
    /// How the image is fitted into ``size``.
    public let mode: ResizeMode
    /// The resampling kernel.
    public let filter: ResizeFilter

    /// Creates a resize to `size`.
    public init(size: PixelSize, mode: ResizeMode = .fill, filter: ResizeFilter = .lanczos3) {
        self.size = size
        self.mode = mode
        self.filter = filter
    }

    public var transformerKey: String {
        "ResizeTransformer(size=(\(size.width),\(size.height)),mode=\(mode.rawValue),filter=\(filter.rawValue))"
    }

    /// The output size and the source region for an input of `input` pixels.
    public func plan(for input: PixelSize) -> (size: PixelSize, region: ResampleRegion?)? {
        guard isAllowedOutput(width: size.width, height: size.height), input.width > 0, input.height > 0 else {
            return nil
        }
        let sw = Double(input.width)
        let sh = Double(input.height)
        let tw = Double(size.width)
        let th = Double(size.height)
        switch mode {
        case .fill:
            return (size, nil)
        case .aspectFit:
            let scale = min(tw / sw, th / sh)
            let w = max(1, min(size.width, Int((sw * scale).rounded())))
            let h = max(1, min(size.height, Int((sh * scale).rounded())))
            return (PixelSize(width: w, height: h), nil)
        case .aspectFill:
            let scale = max(tw / sw, th / sh)
            let regionWidth = min(sw, tw / scale)
            let regionHeight = min(sh, th / scale)
            let region = ResampleRegion(
                x: (sw - regionWidth) / 2, y: (sh - regionHeight) / 2, width: regionWidth, height: regionHeight)
            return (size, region)
        }
    }

    public func transform(_ image: Image, key: String) -> Image? {
        guard let plan = plan(for: image.pixelSize),
            isAllowedOutput(width: plan.size.width, height: plan.size.height, format: image.pixelFormat)
        else { return nil }
        let resampler = Resampler(filter: filter)
        return image.mappingFrames { resampler.resample($0, to: plan.size, region: plan.region) }?
            .carryingGainMap(from: image) { $0.resampled(base: image.pixelSize, to: plan.size, region: plan.region, resampler: resampler) }
    }
}
