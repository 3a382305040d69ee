import CAVIF
import Foundation
import WebImageCore

/// One parsed AVIF file: a libavif decoder over a private copy of the bytes (libavif keeps a
/// pointer to its input for the decoder's whole life).
///
/// Limits are checked here from the parsed container before any pixel memory is allocated, and
/// the pixel limit is then given to libavif for the AV1 decoder. Not thread-safe: one owner at a time.
final class AVIFDecoderHandle {
    private let decoder: UnsafeMutablePointer<avifDecoder>
    private let input: UnsafeMutableRawBufferPointer
    let limits: DecodeLimits
    /// The image size the container declares, recorded after parsing (libavif overwrites
    /// `decoder->image`'s size with each decoded frame's).
    private(set) var canvasSize = PixelSize(width: 0, height: 0)

    /// Parses `data` (the container only; no AV1 decoding yet).
    /// - Throws: `badImageData` for data libavif cannot parse, `imageTooLarge` over a limit.
    init(_ data: Data, limits: DecodeLimits) throws {
        guard !data.isEmpty else { throw WebImageError.badImageData(reason: "empty AVIF data") }
        guard let decoder = avifDecoderCreate() else {
            throw WebImageError.unsupportedFormat(.avif, reason: "libavif could not create a decoder")
        }
        self.decoder = decoder
        self.limits = limits
        input = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 16)
        data.withUnsafeBytes { input.copyMemory(from: $0) }
        decoder.pointee.maxThreads = 1
        // Lenient like browsers: files missing optional boxes (pixi, …) still decode.
        decoder.pointee.strictFlags = avifStrictFlags(AVIF_STRICT_DISABLED.rawValue)
        decoder.pointee.ignoreExif = AVIF_TRUE
        decoder.pointee.ignoreXMP = AVIF_TRUE
        try Self.check(avifDecoderSetIOMemory(decoder, input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count))
        try Self.check(avifDecoderParse(decoder))
        if let image = decoder.pointee.image {
            canvasSize = PixelSize(width: Int(image.pointee.width), height: Int(image.pointee.height))
        }
        // libavif's own (larger) default limits applied while parsing; ours are checked here, so
        // that an image over them is `imageTooLarge`, and then bound the AV1 decoder too.
        try limits.check(canvas: canvasSize)
        if frameCount > 1 { try limits.check(frames: frameCount, of: canvasSize) }
        decoder.pointee.imageSizeLimit = UInt32(clamping: max(1, limits.maxPixelCount))
    }

    deinit {
        avifDecoderDestroy(decoder)
        input.deallocate()
    }


    /// The display orientation the container's `irot` and `imir` properties describe, as the
    /// equivalent EXIF orientation. HEIF applies the rotation (`angle` × 90° anticlockwise) and
    /// then the mirror (`mode` 0 exchanges top and bottom, 1 left and right — EXIF 4 and 2).
    /// The decoder's image (the container's properties after parsing).
    var decoderImage: UnsafeMutablePointer<avifImage>? { decoder.pointee.image }

    var orientation: ImageOrientation {
        guard let image = decoder.pointee.image else { return .up }
        let flags = image.pointee.transformFlags
        let angle = flags & avifTransformFlags(AVIF_TRANSFORM_IROT.rawValue) != 0 ? Int(image.pointee.irot.angle & 3) : 0
        let mirror: Int? = flags & avifTransformFlags(AVIF_TRANSFORM_IMIR.rawValue) != 0 ? Int(image.pointee.imir.mode & 1) : nil
        return Self.orientation(rotation: angle, mirror: mirror)
    }

    /// The EXIF orientation of `rotation` quarter turns anticlockwise followed by the mirror
    /// `mirror` (0: top↔bottom, 1: left↔right, `nil`: none).
    static func orientation(rotation: Int, mirror: Int?) -> ImageOrientation {
        // Rows: rotation 0…3 (0°, 90°, 180°, 270° anticlockwise); columns: no mirror, mode 0
        // (top↔bottom), mode 1 (left↔right).
        let table: [[ImageOrientation]] = [
            [.up, .downMirrored, .upMirrored],
            [.left, .leftMirrored, .rightMirrored],
            [.down, .upMirrored, .downMirrored],
            [.right, .rightMirrored, .leftMirrored],
        ]
        return table[rotation & 3][mirror.map { $0 == 0 ? 1 : 2 } ?? 0]
    }

    /// Images in the file: 1 for a still image, the frame count of an image sequence.
    var frameCount: Int { max(1, Int(decoder.pointee.imageCount)) }

    /// Whether the file has an alpha plane.
    var hasAlpha: Bool { decoder.pointee.alphaPresent != AVIF_FALSE }

    /// The display duration of frame `index` in seconds (browsers' short-delay rule applied).
    func duration(ofFrame index: Int) -> Double {
        var timing = avifImageTiming()
        guard index >= 0, index < frameCount, avifDecoderNthImageTiming(decoder, UInt32(index), &timing) == AVIF_RESULT_OK
        else { return FrameDelay.replacement }
        return FrameDelay.clamped(timing.duration.isFinite ? max(0, timing.duration) : 0)
    }

    /// Decodes frame `index` (sequentially when it is the next one, else by seeking from the
    /// nearest keyframe) into a new RGBA buffer at the canvas size; with `hdr`, at 16 bits and
    /// through that transform to SDR sRGB (H-4).
    /// - Throws: `badImageData` when the AV1 data is corrupt or a frame's size differs from the
    ///   container's; `imageTooLarge` when the 16-bit intermediate exceeds the budget.
    func frame(at index: Int, hdr: HDRToSDRTransform? = nil) throws -> PixelBuffer {
        let (image, size) = try decodedImage(at: index)
        if let hdr { return try toneMapped(image, size: size, hdr) }
        return try PixelBuffer.make(width: size.width, height: size.height) { out in
            var rgb = avifRGBImage()
            avifRGBImageSetDefaults(&rgb, image)
            rgb.format = AVIF_RGB_FORMAT_RGBA
            rgb.depth = 8
            rgb.pixels = out.baseAddress
            rgb.rowBytes = UInt32(size.width * PixelBuffer.bytesPerPixel)
            try Self.check(avifImageYUVToRGB(image, &rgb))
        }
    }

    /// `image` converted by libavif to 16-bit RGBA (its codes scaled to 0…65535), then by `hdr`
    /// to RGBA8. The intermediate (8 bytes a pixel) counts against the decoded-bytes budget
    /// with the result: three RGBA8 canvases.
    private func toneMapped(_ image: UnsafeMutablePointer<avifImage>, size: PixelSize, _ hdr: HDRToSDRTransform) throws -> PixelBuffer {
        try limits.checkBudget(frames: 3, of: size)
        let count = size.width * size.height
        let wide = UnsafeMutablePointer<UInt16>.allocate(capacity: count * 4)
        defer { wide.deallocate() }
        var rgb = avifRGBImage()
        avifRGBImageSetDefaults(&rgb, image)
        rgb.format = AVIF_RGB_FORMAT_RGBA
        rgb.depth = 16
        rgb.pixels = UnsafeMutableRawPointer(wide).assumingMemoryBound(to: UInt8.self)
        rgb.rowBytes = UInt32(size.width * 8)
        try Self.check(avifImageYUVToRGB(image, &rgb))
        return PixelBuffer.make(width: size.width, height: size.height) { out in
            hdr.apply(wide, out.baseAddress!, count: count)
        }
    }

    /// Decodes frame `index` (the next one, or by seeking) and checks its size against the
    /// canvas and the limits; the pixels are still YUV in libavif's image.
    func decodedImage(at index: Int) throws -> (UnsafeMutablePointer<avifImage>, PixelSize) {
        guard index >= 0, index < frameCount else {
            throw WebImageError.badImageData(reason: "AVIF frame \(index) of \(frameCount)")
        }
        if Int(decoder.pointee.imageIndex) + 1 == index {
            try Self.check(avifDecoderNextImage(decoder))
        } else {
            try Self.check(avifDecoderNthImage(decoder, UInt32(index)))
        }
        guard let image = decoder.pointee.image else {
            throw WebImageError.badImageData(reason: "AVIF frame \(index) produced no image")
        }
        let size = PixelSize(width: Int(image.pointee.width), height: Int(image.pointee.height))
        guard size == canvasSize else {
            throw WebImageError.badImageData(reason: "AVIF frame \(index) is \(size), the image \(canvasSize)")
        }
        try limits.check(canvas: size)
        return (image, size)
    }

    static func check(_ result: avifResult) throws {
        guard result != AVIF_RESULT_OK else { return }
        let reason = String(cString: avifResultToString(result))
        throw WebImageError.badImageData(reason: "AVIF: \(reason)")
    }
}
