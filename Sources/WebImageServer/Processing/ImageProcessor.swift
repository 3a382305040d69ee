import Foundation
import NIOCore
import WebImage

/// The service's processing of one request (SPEC V-2, V-5, V-6), run whole on the processing
/// pool by ``render(_:options:as:metrics:decodes:)``: the header checked against the limits,
/// the plan checked before decoding, the decode (reduced when it can be, ``ShrinkOnLoad``), the
/// steps of ``ProcessingPipeline/service``, the encode and the result-size limit, each stage
/// timed. Pure and synchronous.
struct ImageProcessor: Sendable {
    var coders: CodersManager = .shared
    var limits = ProcessingLimits()
    /// Whether JPEG, still WebP and PNG sources may be decoded reduced (``ShrinkOnLoad``); off, every source is
    /// decoded at full size (tests compare the two).
    var shrinkOnLoad = true
    /// The service's `strip-color-profile` setting: convert to sRGB (default) or keep the
    /// source's profile, when the URL has no `scp` option.
    var stripColorProfile = true
    /// The service's `preserve-hdr` setting, for requests without a `preserve_hdr` option.
    var preserveHDR = false
    /// JPEG XL's encoding effort (the `jxl-effort` setting).
    var jxlEffort = 4
    /// libaom's speed for AVIF (the `avif-speed` setting); `nil` chooses by result size.
    var avifSpeed: Int?
    /// The service's `unsharp-masking-*` settings, for what the request's `unsharp_masking` leaves out.
    var unsharpMasking = UnsharpMasking.serviceDefault
    /// The service's `jpeg-*`, `png-*` and `webp-*` settings, for what the request's
    /// `jpeg_options`, `png_options` and `webp_options` leave out.
    var jpegOptions = JPEGOptions()
    var pngOptions = PNGOptions()
    var webpOptions = WebPOptions()
    /// The service's `avif-subsample` setting, for requests whose `avif_options` leave it out.
    var avifOptions = AVIFOptions()
    /// The service's `autoquality-*` settings, for requests without an `aq` option.
    var autoquality = AutoQuality.none
    /// The service's `autoquality-format-min`: the lowest quality per format.
    var autoqualityFormatMin: [OutputFormat: Int] = [:]
    /// The service's `autoquality-format-max`: the highest quality per format.
    var autoqualityFormatMax: [OutputFormat: Int] = [:]

    /// imgproxy's per-format default qualities (`webp=79,avif=63,jxl=77`, 80 for the others).
    static func defaultQuality(for format: OutputFormat) -> Int {
        switch format {
        case .avif: 63
        case .jxl: 77
        case .webp: 79
        default: 80
        }
    }

    /// `source` rendered with `options` as `format`: what the processing pool runs for a request
    /// whose result is not cached, with the service's `watermark` image when the request asks
    /// for one. Records the stage timings and the decode scale in `metrics` and counts the
    /// decode in `decodes`.
    func render(
        _ source: SourceImage, options: ProcessingOptions, as format: OutputFormat, best: BestFormatRequest? = nil,
        watermark: LoadedWatermark? = nil, metrics: ServiceMetrics, decodes: SharedCount
    ) throws(ImageServiceError) -> RenderedResult {
        // `enforce_thumbnail`: the embedded thumbnail, when there is one, is the source — a
        // JPEG's EXIF thumbnail as a file of its own, a HEIC/HEIF/AVIF thumbnail decoded by
        // libheif from the container (within the decode limits).
        let thumbnail = options.enforceThumbnail ? EmbeddedThumbnail(source.data, format: source.format) : nil
        let data = thumbnail?.data ?? source.data, sourceFormat = thumbnail == nil ? source.format : .jpeg
        let containerStart = ContinuousClock.now
        let container = options.enforceThumbnail && thumbnail == nil
            ? try decodeContainerThumbnail(source.data, format: source.format, options: options) : nil
        var header: ImageMetadata
        if let container {
            header = ImageMetadata(format: source.format, pixelSize: container.pixelSize)
        } else {
            header = try limits.checkHeader(data, format: sourceFormat, page: options.page)
            if let thumbnail {
                header = ImageMetadata(format: .jpeg, pixelSize: header.pixelSize, orientation: thumbnail.orientation)
            }
        }
        // V-5: the result's size and working memory, from the plan, before decoding.
        // `disable_animation`: every source as a still (its first frame, or `page`).
        let animate = format.isAnimatable && !options.disableAnimation
        try checkPlan(header, options: options, keepAnimation: animate)
        // A JPEG whose pixels no step changes becomes JPEG XL losslessly, without decoding.
        if format == .jxl, best == nil, thumbnail == nil, container == nil,
            let body = losslessJPEGXL(data, format: sourceFormat, header: header, options: options) {
            let encodeStart = ContinuousClock.now
            try limits.checkResult(bytes: body.count)
            metrics.recordStage("encode", ContinuousClock.now - encodeStart)
            return RenderedResult(body: ByteBuffer(bytes: body), format: format)
        }
        decodes.increment()
        // A container's thumbnail was decoded above: its time counts as the decode.
        let decodeStart = container == nil ? ContinuousClock.now : containerStart
        var image: DecodedSource
        if let container {
            image = DecodedSource(image: container, reduction: nil)
        } else if let thumbnail {
            // Small already; decoded whole, then turned by the main image's orientation.
            var whole = self
            whole.shrinkOnLoad = false
            image = try whole.decode(thumbnail.data, format: .jpeg, options: options, keepAnimation: false)
            if options.autoRotate ?? true { image.pendingOrientation = thumbnail.orientation }
        } else {
            image = try decode(
                data, format: sourceFormat, options: options, keepAnimation: animate,
                dynamicRange: dynamicRange(for: options, output: best == nil ? format : nil),
                // A JPEG writes a source's gain map as it is, not one computed from its rendition.
                appliesGainMap: best != nil || format != .jpeg)
        }
        metrics.recordStage("decode", ContinuousClock.now - decodeStart)
        metrics.recordDecode(scaleDenominator: image.reduction?.denominator ?? 1)
        let processStart = ContinuousClock.now
        var context = ProcessingContext(source: image, options: options, limits: limits, watermark: watermark)
        context.serviceUnsharpMasking = unsharpMasking
        context.output = outputEncoding(format, options: options, best: best)
        let encodeStart = try ProcessingPipeline.service.run(&context, timingLastStep: true)
        metrics.recordStage("process", encodeStart - processStart)
        guard let encoded = context.encoded else { throw .unprocessable("encoding \(format.rawValue) failed") }
        let body = keepingCopyright(encoded, of: source.data, as: format, options: options)
        metrics.recordStage("encode", ContinuousClock.now - encodeStart)
        if context.searched || !(context.output?.candidates.isEmpty ?? true) {
            metrics.recordQualitySearch(encodes: context.encodes, best: !(context.output?.candidates.isEmpty ?? true))
        }
        // V-5: the maximum result size, checked on the encoded bytes.
        try limits.checkResult(bytes: body.count)
        return RenderedResult(body: ByteBuffer(bytes: body), format: context.encodedFormat ?? format)
    }

    /// Checks the result `options` plan for a source described by `metadata` against the
    /// result limits (``ProcessingBudget``), before decoding: the plan is made on the header's
    /// size as the decoder will orient it and `rotate` turns it. Trimming can only make it
    /// smaller; the `ProcessingStep/plan` step checks the exact plan again.
    func checkPlan(_ metadata: ImageMetadata, options: ProcessingOptions, keepAnimation: Bool) throws(ImageServiceError) {
        var size = metadata.pixelSize
        let oriented = (options.autoRotate ?? true) && metadata.orientation.swapsDimensions
        if oriented != (options.rotate % 180 != 0) { size = PixelSize(width: size.height, height: size.width) }
        let pages = options.pages ?? 1, available = max(1, (metadata.frameCount ?? 1) - (options.page ?? 0))
        var frames = 1
        if keepAnimation, options.page == nil, pages == 1 {
            frames = max(1, metadata.frameCount ?? 1)
        } else if pages > 1, keepAnimation {
            frames = min(pages, available)
        } else if pages > 1 {
            // Stacked top to bottom: as tall as the pages taken, checked before decoding.
            let (height, overflow) = size.height.multipliedReportingOverflow(by: min(pages, available))
            let (pixels, pixelsOverflow) = size.width.multipliedReportingOverflow(by: overflow ? 0 : height)
            guard !overflow, !pixelsOverflow, pixels <= limits.maxSourcePixels else {
                throw .tooLarge("\(min(pages, available)) pages of \(size) stacked exceed \(limits.maxSourcePixels) pixels")
            }
            size = PixelSize(width: size.width, height: height)
        }
        let plan = GeometryPlan(source: size, options: options)
        try ProcessingBudget(limits: limits).check(output: plan.outputSize, frames: frames, options: options)
    }

    /// Applies every geometry and filter option to a full-size `image`.
    func transform(_ image: Image, options: ProcessingOptions) throws(ImageServiceError) -> Image {
        try transform(DecodedSource(image: image, reduction: nil), options: options)
    }

    /// Runs ``ProcessingPipeline/service`` on `source` (with `watermark` for the `watermark`
    /// option). The geometry is planned on the full size; a reduced source's pixels are
    /// resampled from the plan's region mapped onto them.
    func transform(_ source: DecodedSource, options: ProcessingOptions, watermark: LoadedWatermark? = nil) throws(ImageServiceError) -> Image {
        var context = ProcessingContext(source: source, options: options, limits: limits, watermark: watermark)
        context.serviceUnsharpMasking = unsharpMasking
        try ProcessingPipeline.service.run(&context)
        return context.image
    }

    /// Encodes `image` as `format` with the request's quality and byte limit (no search).
    func encode(_ image: Image, as format: OutputFormat, options: ProcessingOptions) throws(ImageServiceError) -> Data {
        var output = outputEncoding(format, options: options, best: nil)
        output.autoquality = .none
        return try output.encode(image, quality: output.quality)
    }

    /// The encode a request asks for as `format`: its quality, byte limit and quality search
    /// (the request's `aq`, else the service's), with the service's encoder settings.
    func outputEncoding(_ format: OutputFormat, options: ProcessingOptions, best: BestFormatRequest?) -> OutputEncoding {
        var output = OutputEncoding(
            format: best?.candidates.first ?? format, requestQuality: options.quality, formatQuality: options.formatQuality,
            maxBytes: options.maxBytes, autoquality: options.autoquality ?? autoquality, coders: coders)
        output.avifSubsampling = options.avifOptions.over(avifOptions).subsample
        output.avifSpeed = avifSpeed
        output.jxlEffort = jxlEffort
        output.jpeg = options.jpegOptions.over(jpegOptions).encodeSettings
        output.png = options.pngOptions.over(pngOptions).encodeSettings
        output.webp = options.webpOptions.over(webpOptions).encodeSettings
        if options.autoquality == nil {
            output.formatMin = autoqualityFormatMin
            output.formatMax = autoqualityFormatMax
        }
        if let best, !best.candidates.isEmpty {
            output.candidates = best.candidates
            output.best = best.settings
        }
        return output
    }
}
