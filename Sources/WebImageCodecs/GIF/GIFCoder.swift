import Foundation
import WebImageCore

/// The GIF coder over giflib (SPEC C-3): still and animated GIFs, disposal methods,
/// transparency, interlacing, loop count; lazy frame access; and a palette encoder.
///
/// Decoding:
/// - The canvas is the logical screen; frames are composited as browsers do and clipped to
///   it (see `GIFFrameSequence`). A screen of 0 width or height takes the first frame's extent.
/// - Limits are checked before any pixel memory is allocated: the canvas against
///   ``/WebImageCore/DecodeLimits/maxPixelCount`` (a 65535×65535 screen is rejected with `imageTooLarge`,
///   not clamped), the frame count and total animation pixels (from a block scan that decodes no
///   pixels), and each frame's own declared size.
/// - Delays are centiseconds, converted to seconds through ``/WebImageCore/FrameDelay/clamped(_:)``
///   (0 and 1 cs become 100 ms).
/// - Loop count: the NETSCAPE2.0 value as stored (0 = forever); a file without the extension
///   plays once (loop count 1), as SDWebImage reports it.
/// - Truncated or corrupt data: the frames completed before the damage are returned when there
///   is at least one (browsers show them too); otherwise `badImageData` is thrown.
/// - `firstFrameOnly`, thumbnails (``/WebImageCore/DecodeOptions/targetSize(for:)``, each composited frame
///   shrunk with ``/WebImageCore/PixelBuffer/thumbnail(to:)``) and `scaleFactor` are honoured.
///
/// Thread-safe: every call opens its own giflib handle.
public struct GIFCoder: AnimatedImageDecoding {
    /// Creates the coder.
    public init() {}

    /// Whether `data` starts with a GIF87a or GIF89a signature.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .gif
    }

    /// Decodes every frame (or the first with ``/WebImageCore/DecodeOptions/firstFrameOnly``), composited
    /// onto the canvas.
    /// - Throws: ``/WebImageCore/WebImageError`` — `badImageData` for data that is not a decodable GIF,
    ///   `imageTooLarge` when a limit is exceeded.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        guard canDecode(data) else { throw WebImageError.badImageData(reason: "GIF: not a GIF file") }
        return try data.withUnsafeBytes { bytes in
            let structure = try GIFStructure.scan(bytes, maxFrames: options.limits.maxFrameCount)
            let canvas = structure.canvasSize
            try options.limits.check(canvas: canvas)
            let wanted = options.firstFrameOnly ? min(1, structure.frames.count) : structure.frames.count
            try options.limits.check(frames: max(1, wanted), of: canvas)
            guard wanted > 0 else { throw WebImageError.badImageData(reason: "GIF: no complete image") }
            try GIFCoder.checkFrameAreas(structure.frames.prefix(wanted), limits: options.limits)

            let sequence = try GIFFrameSequence(bytes: bytes, structure: structure, limits: options.limits)
            let target = options.targetSize(for: canvas)
            var frames: [ImageFrame] = []
            var transparent = false
            // SPEC R-3: the budget counted while frames are produced — the composited canvas
            // (and the copy disposal method 3 keeps) plus every frame kept so far.
            var produced = DecodeLimits.decodedBytes(frames: 2, of: canvas)
            while frames.count < wanted {
                let next: GIFFrameSequence.DecodedFrame?
                do {
                    next = try sequence.next()
                } catch let error as WebImageError {
                    if case .imageTooLarge = error { throw error }
                    if frames.isEmpty { throw error }
                    break  // damaged after complete frames: keep what was decoded
                }
                guard let next else { break }
                let pixels = target == canvas ? next.pixels : next.pixels.thumbnail(to: target)
                let (sum, overflow) = produced.addingReportingOverflow(pixels.byteCount)
                produced = overflow ? Int.max : sum
                guard produced <= options.limits.maxDecodedBytes else {
                    throw WebImageError.imageTooLarge(
                        reason: "GIF: \(frames.count + 1) frames and the canvas need more than the decoded-bytes budget of "
                            + DecodeLimits.formatBytes(options.limits.maxDecodedBytes))
                }
                if !transparent && !pixels.isFullyOpaque() { transparent = true }
                frames.append(ImageFrame(pixels: pixels, duration: GIFCoder.duration(of: next.record)))
            }
            guard !frames.isEmpty else { throw WebImageError.badImageData(reason: "GIF: no complete image") }
            if frames.count == 1 { frames[0] = ImageFrame(pixels: frames[0].pixels, duration: 0) }
            let image = Image(
                frames: frames, scale: options.imageScale, format: .gif,
                loopCount: structure.loopCount, hasAlpha: transparent)
            let profile = options.colorManagement == .ignore ? nil : structure.colorProfile
            return ColorConversion.finish(image, profile: profile, options: options)
        }
    }

    /// Whether `data` holds more than one image (a block scan that stops at the second image).
    public func isAnimated(_ data: Data) -> Bool {
        guard canDecode(data) else { return false }
        let structure = data.withUnsafeBytes { try? GIFStructure.scan($0, maxFrames: 1) }
        return (structure?.frames.count ?? 0) > 1
    }

    /// Canvas size, frame count, loop count and possible transparency, from a block scan that
    /// decompresses no pixels. `loopCount` is `nil` for a still image.
    /// - Throws: `badImageData` when the header is missing.
    public func readMetadata(_ data: Data) throws -> ImageMetadata {
        guard canDecode(data) else { throw WebImageError.badImageData(reason: "GIF: not a GIF file") }
        let structure = try data.withUnsafeBytes { try GIFStructure.scan($0) }
        let count = structure.frames.count
        return ImageMetadata(
            format: .gif, pixelSize: structure.canvasSize, frameCount: count, isAnimated: count > 1,
            loopCount: count > 1 ? structure.loopCount : nil, orientation: .up, hasAlpha: structure.mayHaveAlpha,
            colorProfile: structure.colorProfile)
    }

    /// Opens `data` for lazy, composited frame access (see ``GIFAnimatedSource``).
    /// - Throws: `badImageData` or `imageTooLarge` (canvas limit; frames are decoded one at a
    ///   time, so only the canvas is checked, not the animation total).
    public func makeAnimatedSource(_ data: Data, options: DecodeOptions) throws -> any AnimatedImageSource {
        try GIFAnimatedSource(data: data, options: options)
    }

    /// Bounds the decoding work of frames that declare more pixels than the canvas (they are
    /// decompressed in full, then clipped): each frame's declared area must be within
    /// ``/WebImageCore/DecodeLimits/maxPixelCount`` and their sum within ``/WebImageCore/DecodeLimits/maxTotalAnimationPixels``,
    /// which every GIF whose frames fit the canvas already satisfies after the canvas checks.
    static func checkFrameAreas(_ frames: ArraySlice<GIFStructure.Frame>, limits: DecodeLimits) throws {
        var total = 0
        for frame in frames {
            let area = PixelSize(width: frame.width, height: frame.height).pixelCount
            let (sum, overflow) = total.addingReportingOverflow(area)
            guard area <= limits.maxPixelCount, !overflow, sum <= limits.maxTotalAnimationPixels else {
                throw WebImageError.imageTooLarge(
                    reason: "GIF frames declare \(overflow ? Int.max : sum) pixels; frame limit \(limits.maxPixelCount), "
                        + "animation limit \(limits.maxTotalAnimationPixels)")
            }
            total = sum
        }
    }

    /// A frame's display duration in seconds.
    static func duration(of frame: GIFStructure.Frame) -> Double {
        FrameDelay.clamped(Double(frame.delayCentiseconds) / 100)
    }
}
