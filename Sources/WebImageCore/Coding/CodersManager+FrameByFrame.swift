import Foundation

/// What a frame-by-frame conversion wrote (see
/// ``CodersManager/convertFrameByFrame(_:to:decodeOptions:encodeOptions:transformer:key:)``).
public struct FrameByFrameConversion: Sendable {
    /// The encoded file.
    public var data: Data
    /// The size of the frames written.
    public var pixelSize: PixelSize
    /// The number of frames handed to the encoder.
    public var frameCount: Int
}

extension CodersManager {
    /// The coder that encodes `format`, when it can encode frame by frame: the first coder (in
    /// priority order) that encodes `format`, if that coder is an ``AnimatedImageEncoding``.
    public func animatedEncoder(for format: ImageFormat) -> (any AnimatedImageEncoding)? {
        for coder in coders where coder.canEncode(format) {
            return coder as? any AnimatedImageEncoding
        }
        return nil
    }

    /// Converts an animation to `format` one frame at a time (SPEC R-3): the frames come from
    /// an ``AnimatedImageSource`` and go to an ``AnimatedImageEncoder`` as they are decoded, so
    /// that converting a 4,096-frame animation holds one or two canvases (plus the encoder's
    /// compressed output), never every frame, and the decoded-bytes budget is charged per
    /// canvas, not for the whole animation.
    ///
    /// Returns `nil` — and the caller decodes the whole image and encodes it with
    /// ``encode(_:format:options:)`` — when this path does not apply: `data` is not an animation
    /// of more than one frame that a registered decoder opens lazily, no coder encodes `format`
    /// frame by frame, only the first frame is wanted (``DecodeOptions/firstFrameOnly``, no
    /// ``EncodeOptions/keepAnimation``), or ``EncodeOptions/maxFileSize`` is set (meeting it
    /// means encoding again at other qualities, which needs every frame).
    ///
    /// - Parameters:
    ///   - data: the encoded animation.
    ///   - format: the format to write.
    ///   - decodeOptions: how the frames are decoded (limits, orientation, thumbnail size).
    ///   - encodeOptions: how they are encoded (quality, size, ``EncodeOptions/keepAnimation``).
    ///   - transformer: applied to each frame as a one-frame image (every built-in transformer
    ///     works frame by frame, so the result equals transforming the whole animation).
    ///   - key: the cache key handed to the transformer.
    /// - Throws: the decoder's or encoder's ``WebImageError``; `badImageData` when the
    ///   transform is impossible for a frame.
    public func convertFrameByFrame(
        _ data: Data, to format: ImageFormat, decodeOptions: DecodeOptions, encodeOptions: EncodeOptions,
        transformer: (any ImageTransformer)? = nil, key: String = ""
    ) throws -> FrameByFrameConversion? {
        guard !decodeOptions.firstFrameOnly, encodeOptions.keepAnimation, encodeOptions.maxFileSize == nil,
            let decoder = animatedDecoder(for: data), decoder.isAnimated(data),
            let encoding = animatedEncoder(for: format)
        else { return nil }
        if decodeOptions.limits.maxDecodedToEncodedRatio != nil {
            try checkRatio(data, coder: decoder, options: decodeOptions)
        }
        let metadata = try? decoder.readMetadata(data)
        let source = try decoder.makeAnimatedSource(data, options: decodeOptions)
        guard source.frameCount > 1 else { return nil }
        let sourceFormat = ImageFormat.detect(data)
        let sourceAlpha = metadata?.hasAlpha ?? true
        var encoder: (any AnimatedImageEncoder)?
        var frameSize = source.canvasSize
        for index in 0..<source.frameCount {
            let pixels = try source.frame(at: index)
            let duration = source.duration(ofFrame: index)
            var frame = Image(
                frames: [ImageFrame(pixels: pixels, duration: duration)], scale: decodeOptions.imageScale,
                format: sourceFormat, hasAlpha: sourceAlpha)
            if let transformer {
                guard let transformed = transformer.transform(frame, key: key) else {
                    throw WebImageError.badImageData(
                        reason: "the transform \(transformer.transformerKey) is impossible for this "
                            + "\(pixels.width)x\(pixels.height) image")
                }
                frame = transformed
            }
            if encoder == nil {
                frameSize = frame.pixelSize
                encoder = try encoding.makeAnimatedEncoder(
                    format: format, frameSize: frameSize, loopCount: source.loopCount, hasAlpha: frame.hasAlpha,
                    options: encodeOptions)
            }
            try encoder?.add(frame.pixels, duration: duration)
        }
        guard let encoder else { return nil }
        let encoded = try encoder.finish()
        return FrameByFrameConversion(
            data: encoded, pixelSize: FrameByFrameConversion.outputSize(frameSize, encodeOptions),
            frameCount: source.frameCount)
    }
}

extension FrameByFrameConversion {
    /// The size an encoder writes frames of `size` at (``EncodeOptions/maxPixelSize`` applied).
    static func outputSize(_ size: PixelSize, _ options: EncodeOptions) -> PixelSize {
        guard let box = options.maxPixelSize else { return size }
        return ThumbnailSizing.fit(size, within: box, preserveAspectRatio: true)
    }
}
