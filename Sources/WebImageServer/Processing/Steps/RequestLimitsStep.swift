import Foundation

extension ProcessingLimits {
    /// These limits lowered by a request's own (``RequestLimits``): each the smaller of the two,
    /// so a request can tighten the service's limits and never loosen them. A request's
    /// `max_src_resolution` also holds an animated source's frames together, as imgproxy's does
    /// when no `max_animation_frame_resolution` limits each frame (``maxSummedSourcePixels``).
    func lowered(by request: RequestLimits) -> ProcessingLimits {
        var limits = self
        if let pixels = request.sourcePixels {
            limits.maxSourcePixels = min(limits.maxSourcePixels, pixels)
            limits.maxSummedSourcePixels = pixels
        }
        if let bytes = request.sourceBytes { limits.maxSourceBytes = min(limits.maxSourceBytes, bytes) }
        if let frames = request.animationFrames { limits.maxAnimationFrames = min(limits.maxAnimationFrames, frames) }
        if let pixels = request.animationFramePixels {
            limits.maxAnimationFramePixels = limits.maxAnimationFramePixels > 0 ? min(limits.maxAnimationFramePixels, pixels) : pixels
        }
        return limits
    }

    /// Checks a fetched source's size against ``maxSourceBytes`` (the downloader already stops
    /// at the service's; a request's `max_src_file_size` may be lower).
    /// - Throws: ``ImageServiceError/tooLarge(_:)``.
    func checkSource(bytes: Int) throws(ImageServiceError) {
        guard bytes <= maxSourceBytes else {
            throw .tooLarge("the source is \(bytes) bytes, over the limit of \(maxSourceBytes) (max_src_file_size)")
        }
    }
}

extension ImageProcessor {
    /// This processor with its limits lowered by the request's (`ProcessingLimits.lowered(by:)`).
    func lowered(by request: RequestLimits) -> ImageProcessor {
        guard !request.isEmpty else { return self }
        var processor = self
        processor.limits = limits.lowered(by: request)
        return processor
    }
}
