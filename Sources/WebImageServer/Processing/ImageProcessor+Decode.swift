import Foundation
import WebImage

extension ImageProcessor {
    /// Decodes `data` with the limits applied again by the decoder. A JPEG, still WebP or PNG the
    /// request scales down by 2 or more is decoded reduced (see ``ShrinkOnLoad``) unless
    /// ``shrinkOnLoad`` is off.
    func decode(_ data: Data, options: ProcessingOptions, keepAnimation: Bool) throws(ImageServiceError) -> DecodedSource {
        try decode(data, format: ImageFormat.detect(data), options: options, keepAnimation: keepAnimation)
    }

    /// Decodes `data`, already detected as `format`, as ``decode(_:options:keepAnimation:)`` does.
    func decode(
        _ data: Data, format: ImageFormat, options: ProcessingOptions, keepAnimation: Bool, dynamicRange: DynamicRange = .standard,
        appliesGainMap: Bool = true
    ) throws(ImageServiceError) -> DecodedSource {
        var decodeOptions = DecodeOptions()
        decodeOptions.dynamicRange = dynamicRange
        decodeOptions.appliesGainMap = appliesGainMap
        decodeOptions.applyOrientation = options.autoRotate ?? true
        decodeOptions.colorManagement = (options.stripColorProfile ?? stripColorProfile) ? .convertToSRGB : .preserve
        decodeOptions.firstFrameOnly = !keepAnimation
        limits.applied(to: &decodeOptions)
        do {
            let pages = options.pages ?? 1
            if options.page != nil || pages > 1 {
                let stacked = pages > 1 && !keepAnimation
                var source = try decodePages(
                    from: options.page ?? 0, count: pages, stacked: stacked, of: data, format: format, decodeOptions: decodeOptions)
                source.stacksPages = stacked
                return source
            }
            if shrinkOnLoad, options.resizingAlgorithm.allowsReducedDecode, dynamicRange == .standard || format != .png, let reduced = try decodeReduced(data, options: options, decodeOptions: decodeOptions) {
                return reduced
            }
            return DecodedSource(image: try decodeWhole(data, format: format, options: decodeOptions), reduction: nil)
        } catch let error as ImageServiceError {
            throw error
        } catch let error as WebImageError {
            if case .imageTooLarge(let reason) = error { throw .tooLarge(reason) }
            if case .unsupportedFormat = error { throw .notAnImage }
            throw .unprocessable(error.description)
        } catch {
            throw .unprocessable("\(error)")
        }
    }

    /// The source for the `page` and `pages` options: a PDF's pages drawn by the decoder (one
    /// image, or for several pages one frame each: ``decodePDFPages(_:from:count:stacked:options:)``);
    /// otherwise the first frame for one page from 0 and every frame up to the decoder's limits
    /// else, which the `ProcessingStep/page` step picks (TIFF pages and animation frames are frames).
    private func decodePages(
        from page: Int, count: Int, stacked: Bool, of data: Data, format: ImageFormat, decodeOptions: DecodeOptions
    ) throws -> DecodedSource {
        var pageOptions = decodeOptions
        if format == .pdf {
            guard count > 1 else {
                pageOptions.pageIndex = page
                return DecodedSource(image: try coders.decode(data, options: pageOptions), reduction: nil, pageSelected: true)
            }
            let image = try decodePDFPages(data, from: page, count: count, stacked: stacked, options: pageOptions)
            return DecodedSource(image: image, reduction: nil, pageSelected: true)
        }
        pageOptions.firstFrameOnly = page == 0 && count == 1
        return DecodedSource(image: try decodeWhole(data, format: format, options: pageOptions), reduction: nil)
    }

    /// Pages `page..<page + count` of a PDF (those there are; `page` itself must exist), each
    /// drawn by the decoder, as the frames of one image. Each page's size is read before it is
    /// drawn, and the pages' pixels together must stay within the source resolution limit. To be
    /// `stacked`, each page is drawn at its own size; as an animation, at the first page's size,
    /// and no more pages than the animation frame limit. A cancelled request stops between pages.
    private func decodePDFPages(_ data: Data, from page: Int, count: Int, stacked: Bool, options: DecodeOptions) throws -> Image {
        let pageCount = try coders.readMetadata(data).frameCount ?? 1
        let last = max(page + 1, min(pageCount, page + count))
        if !stacked, last - page > limits.maxAnimationFrames {
            throw ImageServiceError.tooLarge("\(last - page) PDF pages as frames exceed \(limits.maxAnimationFrames)")
        }
        var first: Image?
        var frames: [ImageFrame] = []
        var total = 0
        for index in page..<last {
            if WorkCancellation.isCurrentCancelled { throw ImageServiceError.timedOut }
            var pageOptions = options
            pageOptions.pageIndex = index
            let size: PixelSize
            if !stacked, let first {
                size = first.pixelSize
                pageOptions.thumbnailPixelSize = size
                pageOptions.preserveAspectRatio = false
            } else {
                size = try PDFCoder(pageIndex: index).readMetadata(data).pixelSize
            }
            let (sum, overflow) = total.addingReportingOverflow(size.pixelCount)
            total = overflow ? Int.max : sum
            guard total <= limits.maxSourcePixels else {
                throw WebImageError.imageTooLarge(
                    reason: "PDF pages \(page)…\(index) are \(total) pixels together, over \(limits.maxSourcePixels)")
            }
            let image = try coders.decode(data, options: pageOptions)
            first = first ?? image
            frames.append(ImageFrame(pixels: image.pixels, duration: 0))
        }
        guard let first else { throw WebImageError.badImageData(reason: "PDF: no page \(page)") }
        return first.replacing(frames: frames)
    }

    /// `data`, detected as `format`, decoded by ``coders`` — except an SVG, drawn by an
    /// ``/WebImageCodecs/SVGCoder`` within the limits' ``ProcessingLimits/svgBudget``.
    func decodeWhole(_ data: Data, format: ImageFormat, options: DecodeOptions) throws -> Image {
        if format == .svg { return try SVGCoder(budget: limits.svgBudget).decode(data, options: options) }
        return try coders.decode(data, options: options)
    }

    /// `data` decoded reduced when its decoder can reduce it (``CodersManager/reducedDecoder(for:)``:
    /// a JPEG, a still WebP, a still non-interlaced PNG) and `options` scale it down by 2 or more
    /// (``ShrinkOnLoad``); `nil` for a full-size decode. Animations and interlaced files decode
    /// at full size. The header is read as the decoder itself reads it, so its orientation is
    /// the one applied; unreadable, the full decode reports why.
    private func decodeReduced(_ data: Data, options: ProcessingOptions, decodeOptions: DecodeOptions) throws -> DecodedSource? {
        guard let decoder = coders.reducedDecoder(for: data), let header = try? decoder.readMetadata(data) else { return nil }
        let geometry = ShrinkOnLoad(
            storedSize: header.pixelSize, orientation: decodeOptions.applyOrientation ? header.orientation : .up,
            rotate: options.rotate, flipHorizontal: options.flipHorizontal, flipVertical: options.flipVertical, decoder: decoder)
        let denominator = geometry.denominator(for: options)
        guard denominator > 1 else { return nil }
        let image = try decoder.decode(data, scaleDenominator: denominator, options: decodeOptions)
        return DecodedSource(image: image, reduction: geometry.reduction(denominator))
    }
}
