import Foundation

/// Reads an image's size, format and — where the container says so cheaply — frame count, loop
/// count, orientation and alpha from its header, without decoding pixels (SPEC I-4).
///
/// It covers formats that have no coder (BMP, ICO/CUR, TIFF, HEIC/HEIF/AVIF) and is the fallback
/// for JPEG, PNG/APNG, GIF and WebP when no registered coder reads them
/// (``CodersManager/readMetadata(_:)`` uses it). Pure Swift; every read is bounds-checked and
/// every walk is bounded by the data's length, so hostile input gives a ``WebImageError``, never
/// a crash, a hang or a large allocation.
///
/// What each format reports:
/// - JPEG: SOF size, EXIF orientation (`APP1`); one frame.
/// - PNG: `IHDR` size and alpha (colour type or `tRNS`), `eXIf` orientation; APNG frame and
///   loop count from `acTL`.
/// - GIF: logical screen size, frame count and NETSCAPE loop count from a walk over the blocks.
/// - WebP: `VP8 `/`VP8L`/`VP8X` size and alpha; frame count and loop count of an animation.
/// - BMP: size (a negative height means top-down rows); ICO/CUR: the largest entry.
/// - TIFF: IFD0 width, height and orientation, either byte order.
/// - HEIC/HEIF/AVIF: the primary item's `ispe` with its `clap` crop and `irot` rotation applied
///   (the size as displayed); sequences are reported as animated with an unknown frame count.
public enum ImageHeaderReader {
    /// Reads the header metadata of `data`.
    /// - Throws: ``WebImageError/badImageData(reason:)`` when the bytes are not an image or the
    ///   header is truncated or invalid; ``WebImageError/unsupportedFormat(_:reason:)`` for
    ///   recognised formats without a header reader (SVG, PDF, JPEG XL).
    public static func read(_ data: Data) throws -> ImageMetadata {
        guard !data.isEmpty else { throw WebImageError.badImageData(reason: "empty data") }
        return try data.withUnsafeBytes { raw in
            try read(HeaderBytes(raw), format: ImageFormat.detect(raw))
        }
    }

    /// Reads the header metadata of `data`, already detected as `format` (by
    /// `ImageFormat.detect`), without sniffing it again.
    /// - Throws: as ``read(_:)``.
    public static func read(_ data: Data, format: ImageFormat) throws -> ImageMetadata {
        guard !data.isEmpty else { throw WebImageError.badImageData(reason: "empty data") }
        return try data.withUnsafeBytes { raw in
            try read(HeaderBytes(raw), format: format)
        }
    }

    private static func read(_ bytes: HeaderBytes, format: ImageFormat) throws -> ImageMetadata {
        func invalid(_ what: String) -> WebImageError {
            .badImageData(reason: "invalid or truncated \(format) header: \(what)")
        }
        switch format {
        case .jpeg:
            guard let jpeg = JPEGHeader.scan(bytes) else { throw invalid("no frame header before the first scan") }
            return try metadata(format, jpeg.width, jpeg.height, orientation: jpeg.orientation, hasAlpha: false)
        case .png:
            guard let png = PNGHeader.scan(bytes) else { throw invalid("missing IHDR") }
            let frames = png.frameCount ?? 1
            return try metadata(
                format, png.width, png.height, frames: frames, loopCount: frames > 1 ? png.plays : nil,
                orientation: png.orientation, hasAlpha: png.hasAlpha)
        case .gif:
            guard let gif = GIFHeader.scan(bytes) else { throw invalid("missing logical screen descriptor") }
            guard gif.frameCount > 0 else { throw invalid("no image descriptor") }
            // Without a NETSCAPE extension an animation plays once.
            let loops = gif.frameCount > 1 ? (gif.loopCount ?? 1) : nil
            return try metadata(
                format, gif.width, gif.height, frames: gif.frameCount, loopCount: loops, hasAlpha: gif.hasTransparency)
        case .webp:
            guard let webp = WebPHeader.scan(bytes) else { throw invalid("no VP8, VP8L or VP8X chunk") }
            return try metadata(
                format, webp.width, webp.height, frames: webp.isAnimated ? webp.frameCount : 1,
                animated: webp.isAnimated, loopCount: webp.isAnimated ? (webp.loopCount ?? 0) : nil,
                hasAlpha: webp.hasAlpha)
        case .bmp:
            guard let size = BitmapHeader.bmpSize(bytes) else { throw invalid("bad info header") }
            return try metadata(format, size.width, size.height)
        case .ico:
            guard let size = BitmapHeader.icoSize(bytes) else { throw invalid("bad icon directory") }
            return try metadata(format, size.width, size.height)
        case .tiff:
            guard let tiff = TIFFHeader.scan(bytes), let width = tiff.width, let height = tiff.height else {
                throw invalid("IFD0 has no width and height")
            }
            return try metadata(format, width, height, orientation: tiff.orientation)
        case .heic, .heif, .avif:
            guard let heif = ISOBMFFHeader.scan(bytes) else { throw invalid("no image spatial extent (ispe)") }
            return try metadata(
                format, heif.width, heif.height, frames: heif.isSequence ? nil : 1, animated: heif.isSequence,
                loopCount: heif.isSequence ? 0 : nil)
        case .svg, .pdf, .jxl:
            throw WebImageError.unsupportedFormat(format, reason: "no header reader for \(format)")
        case .unknown:
            throw WebImageError.badImageData(reason: "not a recognised image format")
        }
    }

    /// Builds the metadata, refusing zero sizes.
    private static func metadata(
        _ format: ImageFormat, _ width: Int, _ height: Int, frames: Int? = 1, animated: Bool? = nil,
        loopCount: Int? = nil, orientation: ImageOrientation = .up, hasAlpha: Bool? = nil
    ) throws -> ImageMetadata {
        guard width > 0, height > 0 else {
            throw WebImageError.badImageData(reason: "\(format) header declares an empty image (\(width)x\(height))")
        }
        return ImageMetadata(
            format: format, pixelSize: PixelSize(width: width, height: height), frameCount: frames,
            isAnimated: animated ?? ((frames ?? 1) > 1), loopCount: loopCount, orientation: orientation,
            hasAlpha: hasAlpha)
    }
}
