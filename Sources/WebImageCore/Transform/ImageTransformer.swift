/// Something that turns one ``Image`` into another (SPEC T-1): resize, crop, round corners, …
///
/// A transformer never modifies its input: it returns a new image (which may share unchanged
/// frames' pixels). The pipeline runs transformers on its bounded processing pool after
/// decoding, and stores the result in the caches under the original key plus
/// ``transformerKey``.
public protocol ImageTransformer: Sendable {
    /// A stable string naming this transformer and all of its parameters. Two transformers with
    /// equal keys must produce equal output; the key becomes part of the cache key.
    var transformerKey: String { get }

    /// Transforms `image`.
    /// - Parameters:
    ///   - image: the input; never modified.
    ///   - key: the cache key of the image being transformed (for transformers that need it).
    /// - Returns: the transformed image, or `nil` when the transform is impossible (for example a
    ///   crop rectangle outside the image, or an output that would exceed the pixel limit).
    func transform(_ image: Image, key: String) -> Image?
}

/// Runs several transformers in order (SPEC T-1). Its key joins the members' keys with `-`.
///
/// If any member returns `nil`, the whole pipeline returns `nil`.
public struct PipelineTransformer: ImageTransformer {
    /// The members, applied first to last.
    public let transformers: [any ImageTransformer]

    /// Creates a pipeline of `transformers`, applied in order.
    public init(_ transformers: [any ImageTransformer]) {
        self.transformers = transformers
    }

    public var transformerKey: String {
        transformers.map(\.transformerKey).joined(separator: "-")
    }

    public func transform(_ image: Image, key: String) -> Image? {
        var current = image
        for transformer in transformers {
            guard let next = transformer.transform(current, key: key) else { return nil }
            current = next
        }
        return current
    }
}

extension Image {
    /// Applies `body` to the pixels of every frame and returns a new image with the same frame
    /// durations, loop count, scale and format. Frames that share one pixel buffer are
    /// transformed once and keep sharing the result.
    ///
    /// - Returns: `nil` if `body` returns `nil` for any frame, or the output frames differ in size.
    public func mappingFrames(hasAlpha: Bool? = nil, _ body: (PixelBuffer) -> PixelBuffer?) -> Image? {
        var done: [ObjectIdentifier: PixelBuffer] = [:]
        var output: [ImageFrame] = []
        output.reserveCapacity(frames.count)
        for frame in frames {
            let id = ObjectIdentifier(frame.pixels)
            let pixels: PixelBuffer
            if let cached = done[id] {
                pixels = cached
            } else {
                guard let made = body(frame.pixels) else { return nil }
                done[id] = made
                pixels = made
            }
            if let first = output.first, first.pixels.width != pixels.width || first.pixels.height != pixels.height {
                return nil
            }
            output.append(ImageFrame(pixels: pixels, duration: frame.duration))
        }
        return replacing(frames: output, hasAlpha: hasAlpha)
    }
}

/// Formats a `Double` parameter for a transformer key: shortest exact decimal form.
func keyNumber(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
    return String(value)
}

/// Formats a colour for a transformer key: `#RRGGBBAA`.
func keyColor(_ c: RGBA) -> String {
    func hex(_ v: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(v >> 4)], digits[Int(v & 15)]])
    }
    return "#" + hex(c.r) + hex(c.g) + hex(c.b) + hex(c.a)
}

/// The largest output a transformer will allocate, in pixels (the default decode limit).
let maxTransformPixelCount = DecodeLimits.default.maxPixelCount

/// Whether a transform may allocate an output of `width × height` pixels.
func isAllowedOutput(width: Int, height: Int) -> Bool {
    width > 0 && height > 0 && PixelSize(width: width, height: height).pixelCount <= maxTransformPixelCount
}

/// ``isAllowedOutput(width:height:)`` for an output in `format`: the limit is in RGBA8 bytes, so a
/// 16-bit pixel counts as two. Checked before allocating.
func isAllowedOutput(width: Int, height: Int, format: PixelFormat) -> Bool {
    guard isAllowedOutput(width: width, height: height) else { return false }
    return format == .rgba8 || PixelSize(width: width, height: height).pixelCount <= maxTransformPixelCount / 2
}
