/// Compact placeholders for an image: BlurHash and ThumbHash strings, dominant colours, and
/// the small images those strings decode back into (SPEC V-14).
///
/// An app shows the placeholder while the real image loads; a server computes the strings
/// once and hands them out with the image's metadata.
///
/// ```swift
/// let hash = ImagePlaceholder.blurHash(of: image)          // "LEHV6nWB2yk8pyo0adR*.7kCMdnj"
/// let thumb = ImagePlaceholder.thumbHash(of: image)        // "1QcSHQRnh493V4dIh4eXh1h4kJUI"
/// let colors = ImagePlaceholder.dominantColors(of: image)  // [#3d6e8c 41%, …]
/// let small = try ImagePlaceholder.image(fromThumbHash: thumb)
/// ```
///
/// The encoders never need full-size pixels: they first reduce the image's first frame to
/// fit within ``encoderMaxSide`` pixels (``encoderInput(of:)``), so decoding the source with
/// ``decodeOptions(_:)`` (a shrink-on-load decode) gives the same strings at a fraction of the
/// cost.
public enum ImagePlaceholder {
    /// The longest side, in pixels, of the pixels the encoders work on: 100, ThumbHash's
    /// largest input.
    public static let encoderMaxSide = 100

    /// The largest side, in pixels, of an image decoded from a placeholder string.
    public static let maxDecodedSide = 256

    /// The size a source decode for placeholders needs: a little more than ``encoderMaxSide``
    /// so the final box reduction still averages several source pixels per output pixel.
    public static let sourceDecodeSide = 400

    /// `options` set up for a placeholder decode: the first frame only, shrunk on load to fit
    /// within ``sourceDecodeSide`` pixels (codecs that can shrink while decoding do).
    public static func decodeOptions(_ options: DecodeOptions = .default) -> DecodeOptions {
        var options = options
        options.firstFrameOnly = true
        options.thumbnailPixelSize = PixelSize(width: sourceDecodeSide, height: sourceDecodeSide)
        options.preserveAspectRatio = true
        return options
    }

    /// The pixels every encoder works on: the first frame, turned upright when the image
    /// carries an orientation, reduced to fit within ``encoderMaxSide`` × ``encoderMaxSide``
    /// with a box (area-average) filter when larger.
    ///
    /// The reduction is exactly `webimage convert IN OUT.png --first-frame --resize 100x100
    /// --fit fit --filter box` (a ``ResizeTransformer`` in ``ResizeMode/aspectFit`` mode with
    /// the ``ResizeFilter/box`` filter); images within 100 × 100 pixels are used as they are.
    public static func encoderInput(of image: Image) -> PixelBuffer {
        var pixels = image.pixels
        if pixels.width > encoderMaxSide || pixels.height > encoderMaxSide {
            let resize = ResizeTransformer(
                size: PixelSize(width: encoderMaxSide, height: encoderMaxSide), mode: .aspectFit, filter: .box)
            if let plan = resize.plan(for: PixelSize(width: pixels.width, height: pixels.height)) {
                pixels = Resampler(filter: .box).resample(pixels, to: plan.size)
            }
        }
        if image.orientation != .up {
            pixels = pixels.applying(image.orientation)
        }
        return pixels
    }

    /// `pixels`, or ``encoderInput(of:)`` of them when a side exceeds ``encoderMaxSide``.
    static func reduced(_ pixels: PixelBuffer) -> PixelBuffer {
        pixels.width > encoderMaxSide || pixels.height > encoderMaxSide ? encoderInput(of: Image(pixels: pixels)) : pixels
    }

    /// BlurHash, ThumbHash and dominant colours of `image`, from one reduction of its first
    /// frame (``encoderInput(of:)``).
    /// - Parameters:
    ///   - image: the image; only its first frame is used.
    ///   - components: the BlurHash components; `nil` chooses them from the aspect ratio
    ///     (``BlurHashComponents/forAspectRatio(width:height:)``).
    ///   - colorCount: how many dominant colours to find (see ``dominantColors(of:count:)``).
    public static func summary(
        of image: Image, blurHashComponents components: BlurHashComponents? = nil, colorCount: Int = 5
    ) -> PlaceholderSummary {
        let pixels = encoderInput(of: image)
        let chosen = components ?? .forAspectRatio(width: pixels.width, height: pixels.height)
        return PlaceholderSummary(
            blurHash: blurHash(ofPixels: pixels, components: chosen),
            blurHashComponents: chosen,
            thumbHash: thumbHash(ofPixels: pixels),
            dominantColors: dominantColors(ofPixels: pixels, count: colorCount))
    }
}
