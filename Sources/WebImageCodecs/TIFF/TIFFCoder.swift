import CTIFF
import Foundation
import WebImageCore

/// The TIFF decoder over libtiff: strips and tiles; 1- to 16-bit samples; bilevel, grey,
/// palette, RGB, RGBA (associated or unassociated alpha), CMYK and YCbCr; uncompressed, LZW,
/// Deflate, PackBits, JPEG and CCITT fax data; every page of a multi-page file.
///
/// - Pixels come out as 8-bit RGBA with straight alpha (16-bit samples are scaled down), or,
///   when ``/WebImageCore/DecodeOptions/preferredPixelFormat`` asks for RGBA16 and the first page
///   is contiguous unsigned 16-bit RGB(A) or grey(+alpha), as RGBA16 with the ICC profile kept. An
///   RGB or grey profile (tag 34675 of the first page) is handled as for the other formats;
///   contiguous 8-bit CMYK is converted with its CMYK profile, else the built-in
///   ``DefaultCMYKProfile`` (the naive formula with `.ignore`, and for other CMYK layouts).
/// - Limits are checked on every page's size from its directory before any strip or tile is
///   read, and the page count against the frame limits (SPEC C-6). libtiff's own allocations
///   are capped too, and its errors and warnings are captured: nothing is printed.
/// - The orientation tag is applied by default (result `.up`); with
///   ``/WebImageCore/DecodeOptions/applyOrientation`` off, pixels are as stored and it is
///   reported.
/// - Pages are frames: the first page sets the canvas, later pages of another size are fitted
///   into it (aspect ratio kept, centred on transparency). `firstFrameOnly` reads only the
///   first page; ``TIFFAnimatedImageSource`` decodes pages on request. Reduced-resolution
///   copies are not pages.
/// - Thumbnails decode the smallest reduced-resolution copy of the page (`SubfileType` 1
///   directories after it) that still covers the thumbnail size, else the page; then resample.
/// - Encoding writes one page, 8 or 16 bits a sample as the image is (`TIFFCoder+Encoding`).
///
/// The coder holds no state; every call opens its own libtiff handle over a private copy of
/// the bytes (nothing is read from or written to the file system).
public struct TIFFCoder: AnimatedImageDecoding {
    /// The TIFF coder (it holds no state).
    public init() {}

    /// Whether `data` starts with a TIFF or BigTIFF header.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .tiff
    }

    /// Decodes every page (only the first with `firstFrameOnly`).
    /// - Throws: ``/WebImageCore/WebImageError`` — `badImageData`, `unsupportedFormat` or
    ///   `imageTooLarge`.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let file = try TIFFMemoryFile(data)
        let pages = try file.pages(limits: options.limits, maxPages: options.firstFrameOnly ? 1 : .max)
        if let wide = try decodeHighBitDepth(data, file: file, pages: pages, options: options) { return wide }
        let first = pages[0]
        let output = FrameOutput(stored: first.size, orientation: first.orientation, options: options)
        let duration = pages.count > 1 ? FrameDelay.replacement : 0
        var frames: [ImageFrame] = []
        frames.reserveCapacity(pages.count)
        let cmykProfile = TIFFCoder.cmykProfile(data, colorManagement: options.colorManagement)
        for (index, page) in pages.enumerated() {
            let pixels = try file.decode(page, for: output.size, cmykProfile: cmykProfile)
            let frame = TIFFCoder.frame(pixels, of: page, isFirst: index == 0, output: output, options: options)
            frames.append(ImageFrame(pixels: frame, duration: duration))
        }
        let fitted = pages.contains { $0.size != first.size && PixelSize(width: $0.size.height, height: $0.size.width) != first.size }
        let image = Image(
            frames: frames, scale: options.imageScale, orientation: output.reportedOrientation, format: .tiff,
            loopCount: 0, hasAlpha: pages.contains { $0.hasAlpha } || fitted)
        // The first page's profile, for every page (multi-page files with several profiles
        // are rare; each page's own would need a per-frame profile). CMYK was converted while
        // decoding (CMYK pixels cannot be kept, so `.preserve` converts too); an RGB or grey
        // profile in a CMYK file does not fit its pixels and is ignored, as JPEG does.
        let profile = options.colorManagement == .ignore || first.isCMYK ? nil : TIFFICCProfile.read(data)
        return ColorConversion.finish(image, profile: profile, options: options)
    }

    /// The profile CMYK pages are converted with under `colorManagement`: the first page's
    /// CMYK profile, else the built-in default; `nil` (the naive formula) for `.ignore`.
    static func cmykProfile(_ data: Data, colorManagement: ColorManagement) -> ColorProfile? {
        guard colorManagement != .ignore else { return nil }
        return TIFFICCProfile.read(data, models: [.cmyk]) ?? DefaultCMYKProfile.profile
    }

    /// Whether the file has more than one page.
    public func isAnimated(_ data: Data) -> Bool {
        guard let file = try? TIFFMemoryFile(data), let pages = try? file.pages(limits: .default, maxPages: 2) else { return false }
        return pages.count > 1
    }

    /// Opens the file for page-by-page access (a one-page file is a one-frame source).
    /// - Throws: `badImageData` or `imageTooLarge`.
    public func makeAnimatedSource(_ data: Data, options: DecodeOptions) throws -> any AnimatedImageSource {
        try TIFFAnimatedImageSource(data, options: options)
    }

    /// Reads the first page's size, orientation and alpha and the number of pages, from the
    /// directories only.
    /// - Throws: `badImageData` when libtiff cannot read the file, `imageTooLarge` over a limit.
    public func readMetadata(_ data: Data) throws -> ImageMetadata {
        let file = try TIFFMemoryFile(data)
        let pages = try file.pages(limits: .default)
        return ImageMetadata(
            format: .tiff, pixelSize: pages[0].size, frameCount: pages.count, isAnimated: pages.count > 1,
            loopCount: pages.count > 1 ? 0 : nil, orientation: pages[0].orientation, hasAlpha: pages[0].hasAlpha,
            colorProfile: TIFFICCProfile.read(data, models: pages[0].isCMYK ? [.cmyk] : [.rgb, .gray]))
    }

    /// One decoded page (or its reduced copy) as a frame: turned and sized; the first page
    /// fills the frame size, later pages are fitted into it.
    static func frame(_ pixels: PixelBuffer, of page: TIFFPage, isFirst: Bool, output: FrameOutput, options: DecodeOptions) -> PixelBuffer {
        let turned = pixels.applying(options.applyOrientation ? page.orientation : .up)
        let canvas = output.size
        if turned.width == canvas.width && turned.height == canvas.height { return turned }
        if isFirst { return turned.thumbnail(to: canvas) }
        let fitted = ThumbnailSizing.fit(PixelSize(width: turned.width, height: turned.height), within: canvas, preserveAspectRatio: true)
        let scaled = fitted.width == turned.width && fitted.height == turned.height ? turned : turned.thumbnail(to: fitted)
        if scaled.width == canvas.width && scaled.height == canvas.height { return scaled }
        return scaled.centred(in: canvas)
    }
}

extension PixelBuffer {
    /// This buffer in the middle of a transparent canvas of `size` (at least as large).
    fileprivate func centred(in size: PixelSize) -> PixelBuffer {
        let left = (size.width - width) / 2
        let top = (size.height - height) / 2
        let bpp = format.bytesPerPixel
        var canvas = [UInt8](repeating: 0, count: size.pixelCount * bpp)
        for row in 0..<height {
            let source = row * bytesPerRow
            let target = ((top + row) * size.width + left) * bpp
            canvas.replaceSubrange(target..<target + bytesPerRow, with: bytes[source..<source + bytesPerRow])
        }
        return PixelBuffer(width: size.width, height: size.height, format: format, bytes: canvas)
    }
}

/// The pages of a TIFF file as frames, decoded on request: forward by one directory (one step
/// for sequential access), back from the first directory.
public final class TIFFAnimatedImageSource: AnimatedImageSource {
    private let file: TIFFMemoryFile
    private let pages: [TIFFPage]
    private let output: FrameOutput
    private let options: DecodeOptions
    private let cmykProfile: ColorProfile?

    /// Reads the directories of `data` (no pixels yet; limits checked).
    /// - Throws: `badImageData` or `imageTooLarge`.
    public init(_ data: Data, options: DecodeOptions = .default) throws {
        file = try TIFFMemoryFile(data)
        pages = try file.pages(limits: options.limits)
        output = FrameOutput(stored: pages[0].size, orientation: pages[0].orientation, options: options)
        self.options = options
        cmykProfile = TIFFCoder.cmykProfile(data, colorManagement: options.colorManagement)
    }

    /// The size of the frames this source returns (the first page as shown, or the thumbnail size).
    public var canvasSize: PixelSize { output.size }
    /// Number of pages.
    public var frameCount: Int { pages.count }
    /// 0: pages play in a loop, as any multi-frame image.
    public var loopCount: Int { 0 }

    /// Every page shows for the default frame duration (TIFF has no timing).
    public func duration(ofFrame index: Int) -> Double {
        pages.indices.contains(index) && pages.count > 1 ? FrameDelay.replacement : 0
    }

    /// Page `index`, turned and sized per the options.
    /// - Throws: `badImageData` when `index` is out of range or the page data is corrupt.
    public func frame(at index: Int) throws -> PixelBuffer {
        guard pages.indices.contains(index) else {
            throw WebImageError.badImageData(reason: "frame \(index) out of range 0..<\(frameCount)")
        }
        let page = pages[index]
        let pixels = try file.decode(page, for: output.size, cmykProfile: cmykProfile)
        return TIFFCoder.frame(pixels, of: page, isFirst: index == 0, output: output, options: options)
    }
}
