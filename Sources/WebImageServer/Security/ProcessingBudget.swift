import WebImage

/// The result-size limits of a request (SPEC V-5), checked from its geometry plan before any
/// canvas of the result's size is allocated: once on the source's header (before decoding),
/// again on the decoded source (authoritative).
///
/// Every pixel step of the pipeline makes canvases of the result's size at most (resample,
/// extend, background, blur, sharpen): the source's own canvases are bounded by the source
/// limits. The working memory counted is the kept frames of the result plus the largest
/// step's temporaries for one frame: the blur keeps a 16-byte-per-pixel plane and its output,
/// the sharpen a blurred copy besides.
struct ProcessingBudget {
    var limits: ProcessingLimits

    /// Bytes per result pixel of the largest step's temporaries for `options`.
    static func transientBytesPerPixel(_ options: ProcessingOptions) -> Double {
        if options.sharpen > 0 { return 24 }
        if options.blur > 0 { return 20 }
        return 8
    }

    /// Working bytes a result of `output` pixels with `frames` frames needs under `options`.
    static func workingBytes(output: PixelSize, frames: Int, options: ProcessingOptions) -> Double {
        let pixels = Double(output.width) * Double(output.height)
        return pixels * 4 * Double(max(1, frames)) + pixels * transientBytesPerPixel(options)
    }

    /// Throws when a result of `output` pixels and `frames` frames exceeds a limit.
    /// - Throws: ``ImageServiceError/badOption(option:reason:)`` naming the limit.
    func check(output: PixelSize, frames: Int, options: ProcessingOptions) throws(ImageServiceError) {
        guard output.width <= limits.maxResultDimension, output.height <= limits.maxResultDimension else {
            throw .badOption(option: "resize", reason: "result \(output) exceeds \(limits.maxResultDimension) pixels per side")
        }
        let pixels = Double(output.width) * Double(output.height)
        guard pixels <= Double(limits.maxResultPixels) else {
            throw .badOption(
                option: "resize",
                reason: "result \(output) has \(Int(pixels)) pixels, over the limit of \(limits.maxResultPixels) (max-result-resolution)")
        }
        guard pixels * Double(max(1, frames)) <= Double(limits.maxTotalAnimationPixels) else {
            throw .badOption(
                option: "resize",
                reason: "\(frames) frames of \(output) exceed \(limits.maxTotalAnimationPixels) pixels in all")
        }
        let bytes = Self.workingBytes(output: output, frames: frames, options: options)
        guard bytes <= Double(limits.maxProcessingBytes) else {
            let megabytes = Int((bytes / 1_048_576).rounded(.up))
            throw .badOption(
                option: options.blur > 0 || options.sharpen > 0 ? "blur/sharpen" : "resize",
                reason: "result \(output) needs about \(megabytes) MiB to process, over the limit of "
                    + "\(limits.maxProcessingBytes / 1_048_576) MiB (max-processing-memory)")
        }
    }
}
