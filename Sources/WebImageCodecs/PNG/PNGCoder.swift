import Foundation
import WebImageCore

/// The PNG and APNG coder (SPEC C-3), over libspng.
///
/// **Decoding** handles every PNG colour type and bit depth (16-bit is reduced to 8), palettes,
/// `tRNS` transparency and Adam7 interlacing, producing RGBA8 straight alpha. A still 16-bit PNG
/// decodes to RGBA16 instead when ``/WebImageCore/DecodeOptions/preferredPixelFormat`` asks for
/// it, its colour description kept attached (the reduced and incremental decodes stay 8-bit). The colour
/// description (`cICP` > `iCCP` > `sRGB` > `gAMA` with `cHRM`, as browsers rank them) is read
/// and, by default, the pixels are converted to sRGB
/// (``/WebImageCore/DecodeOptions/colorManagement``; `gAMA` 1/2.2 with sRGB or no
/// chromaticities counts as sRGB). An ancillary chunk with a bad CRC is discarded (as libpng
/// does); a bad
/// critical chunk fails the decode; a missing `IEND` after complete image data is tolerated.
/// EXIF orientation from an `eXIf` chunk is applied unless
/// ``/WebImageCore/DecodeOptions/applyOrientation`` is off.
///
/// **APNG** (which libspng does not know) is read by this coder's own bounded chunk parser:
/// `acTL` before `IDAT` makes an animation; `fcTL` rectangles and sequence numbers are validated
/// and the frame count is checked against ``/WebImageCore/DecodeLimits`` before any frame is decoded. Each
/// frame is decoded by libspng from a small stand-alone PNG and composited with the APNG
/// dispose and blend operations. The default image is the first frame only when an `fcTL`
/// precedes `IDAT`; otherwise it is not part of the animation (and
/// ``/WebImageCore/DecodeOptions/firstFrameOnly`` gives the first `fcTL` frame). An APNG whose animation
/// chunks are inconsistent is decoded as its default image, as browsers do. In a truncated
/// APNG, trailing frames without any data are dropped; a frame whose data is cut or corrupt
/// fails the decode.
///
/// **Limits**: the canvas is checked against ``/WebImageCore/DecodeLimits`` from IHDR before any pixel
/// memory is allocated. Ancillary chunks that libspng keeps (text, `iCCP`, `eXIf`, …) are capped
/// by ``/WebImageCore/DecodeLimits/maxChunkBytes`` (each, and all together): a file beyond it throws
/// ``/WebImageCore/WebImageError/imageTooLarge(reason:)``. Image data chunks are not capped (their output is
/// bounded by the canvas limit).
///
/// **Thumbnails**: ``decode(_:options:)`` decodes the full image, then reduces it with
/// ``/WebImageCore/PixelBuffer/thumbnail(to:)``. A still, non-interlaced PNG can instead be
/// decoded at 1/2 … 1/8 of its size row by row, without the full canvas, with
/// ``decode(_:scaleDenominator:options:)``.
///
/// **Encoding** writes PNG (RGBA when the image has alpha that is used, RGB otherwise; 16 bits a
/// channel for an RGBA16 still, with a `cICP` chunk for a CICP description) and,
/// for images with several frames and ``/WebImageCore/EncodeOptions/keepAnimation``, APNG.
///
/// Every call uses its own libspng context; the coder is a value with no state and is safe to
/// use from any thread.
public struct PNGCoder: ProgressiveImageDecoding, AnimatedImageDecoding {
    /// Creates the coder.
    public init() {}

    // MARK: Decoding

    /// Whether `data` starts with the PNG signature.
    public func canDecode(_ data: Data) -> Bool {
        data.withUnsafeBytes { PNGChunkScanner.hasSignature($0) }
    }

    /// Decodes a PNG or APNG.
    ///
    /// - Returns: a still image, or every composited frame of an APNG (only the first with
    ///   ``/WebImageCore/DecodeOptions/firstFrameOnly``), with durations clamped by ``/WebImageCore/FrameDelay``.
    /// - Throws: ``/WebImageCore/WebImageError/imageTooLarge(reason:)`` when the canvas or the animation
    ///   exceeds ``/WebImageCore/DecodeOptions/limits`` (before allocating), ``/WebImageCore/WebImageError/badImageData(reason:)``
    ///   for corrupt or truncated data.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        try data.withUnsafeBytes { bytes in
            let layout = try PNGLayout.read(bytes)
            try options.limits.check(canvas: layout.header.size)
            if let wide = try decodeHighBitDepth(bytes, layout: layout, options: options) { return wide }
            let output = PNGOutput(layout: layout, options: options)
            guard let animation = layout.animation else {
                let profile = colorProfile(bytes, options)
                let hdr = Self.toneMapped(profile, layout: layout, options: options)
                let decoded = try SPNGDecoding.decode(bytes, limits: options.limits, hdr: hdr)
                let image = Image(
                    pixels: output.finish(decoded.pixels), scale: options.imageScale,
                    orientation: output.reportedOrientation, format: .png, hasAlpha: decoded.hasAlpha)
                return ColorConversion.finish(image, profile: hdr == nil ? profile : nil, options: options)
            }
            let count = options.firstFrameOnly ? 1 : animation.frames.count
            try options.limits.check(frames: count, of: layout.header.size)
            var renderer = APNGRenderer(animation: animation, header: layout.header, limits: options.limits)
            var frames: [ImageFrame] = []
            frames.reserveCapacity(count)
            for index in 0..<count {
                let canvas = try renderer.next(in: bytes)
                frames.append(ImageFrame(pixels: output.finish(canvas), duration: animation.frames[index].control.duration))
            }
            let image = Image(
                frames: frames, scale: options.imageScale, orientation: output.reportedOrientation, format: .png,
                loopCount: animation.loopCount,
                hasAlpha: layout.hasAlpha || animation.exposesCanvas(layout.header.size))
            return ColorConversion.finish(image, profile: colorProfile(bytes, options), options: options)
        }
    }

    /// The `cICP` code points of a 16-bit PQ/HLG PNG that a decode with `options` tone-maps from
    /// its 16-bit samples (H-4); `nil` for everything else (an 8-bit PQ/HLG PNG is tone-mapped
    /// by the colour step from its 8-bit values).
    static func toneMapped(_ profile: ColorProfile?, layout: PNGLayout, options: DecodeOptions) -> CICP? {
        guard layout.header.bitDepth == 16, HDRToSDR.transform(for: profile, options: options, bits: 16) != nil,
            case .cicp(let cicp)? = profile?.kind
        else { return nil }
        return cicp
    }

    /// The file's colour description, unless the options ignore it (then it is not read).
    func colorProfile(_ bytes: UnsafeRawBufferPointer, _ options: DecodeOptions) -> ColorProfile? {
        options.colorManagement == .ignore ? nil : PNGColorChunks.read(bytes, limits: options.limits)
    }

    /// Reads IHDR, the animation's frame and loop counts (`acTL`, validated frame table) and the
    /// `eXIf` orientation, without decoding pixels.
    /// - Throws: ``/WebImageCore/WebImageError/badImageData(reason:)`` when there is no valid PNG header.
    public func readMetadata(_ data: Data) throws -> ImageMetadata {
        try data.withUnsafeBytes { bytes in
            let layout = try PNGLayout.read(bytes)
            let frames = layout.animation?.frames.count ?? 1
            var metadata = ImageMetadata(
                format: .png, pixelSize: layout.header.size, frameCount: frames, isAnimated: frames > 1,
                loopCount: layout.animation?.loopCount, orientation: layout.orientation,
                hasAlpha: layout.hasAlpha || layout.animation?.exposesCanvas(layout.header.size) == true,
                colorProfile: PNGColorChunks.read(bytes, limits: .default))
            // A palette's entries are 8-bit whatever its index depth.
            metadata.bitDepth = layout.header.colorType == 3 ? 8 : Int(layout.header.bitDepth)
            return metadata
        }
    }

    // MARK: Animation

    /// Whether `data` declares an APNG animation of more than one frame (`acTL` before `IDAT`).
    /// Reads chunk headers up to the first `IDAT` only.
    public func isAnimated(_ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            guard let (chunks, _) = try? PNGChunkScanner.chunks(in: bytes, stoppingAt: .idat) else { return false }
            guard let actl = chunks.first(where: { $0.type == .actl }), actl.data.count == 8 else { return false }
            return PNGChunkScanner.uint32(bytes, at: actl.data.lowerBound) > 1
        }
    }

    /// Opens an APNG for lazy frame access. The frame table is read and checked against the
    /// limits now; frames are decoded when asked for. A still PNG gives a one-frame source.
    /// - Throws: ``/WebImageCore/WebImageError/imageTooLarge(reason:)`` or ``/WebImageCore/WebImageError/badImageData(reason:)``.
    public func makeAnimatedSource(_ data: Data, options: DecodeOptions) throws -> any AnimatedImageSource {
        let layout = try data.withUnsafeBytes { try PNGLayout.read($0) }
        try options.limits.check(canvas: layout.header.size)
        guard let animation = layout.animation else {
            return PNGStillSource(image: try decode(data, options: options))
        }
        // Frames are rendered one at a time onto one canvas: the budget is charged per canvas,
        // not for every frame (SPEC R-3).
        try options.limits.check(framesDecodedOneAtATime: animation.frames.count, of: layout.header.size)
        return PNGAnimatedSource(data: data, layout: layout, animation: animation, options: options)
    }

    // MARK: Progressive

    /// Always `true` for PNG data: interlaced files show every Adam7 pass, others the rows
    /// decoded so far.
    public func canDecodeIncrementally(_ header: Data) -> Bool {
        canDecode(header)
    }

    /// A fresh incremental decoder for one download.
    public func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoder {
        PNGIncrementalDecoder(options: options)
    }
}

/// A still PNG seen through ``/WebImageCore/AnimatedImageSource``: one frame, already decoded.
final class PNGStillSource: AnimatedImageSource {
    private let image: Image

    init(image: Image) { self.image = image }

    var canvasSize: PixelSize { image.pixelSize }
    var frameCount: Int { 1 }
    var loopCount: Int { 0 }
    func duration(ofFrame index: Int) -> Double { 0 }

    func frame(at index: Int) throws -> PixelBuffer {
        guard index == 0 else { throw WebImageError.badImageData(reason: "PNG: frame \(index) of 1 requested") }
        return image.pixels
    }
}
