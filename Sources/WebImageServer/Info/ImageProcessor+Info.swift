import Foundation
import NIOCore
import WebImage

extension ImageProcessor {
    /// The formats whose coders report gain maps, PQ/HLG transfers and bit depths in their headers.
    static let hdrFormats: Set<ImageFormat> = [.jpeg, .heic, .heif, .avif, .png, .jxl]

    /// The `/info` answer for `source` (SPEC V-14): run whole on the processing pool. The
    /// metadata comes from the header (checked against the limits) and the frame table; the
    /// placeholders from one small decode (``infoDecode(_:header:options:metrics:)``), never the
    /// full image where a decoder can reduce. Counts the decode in `decodes`.
    func info(
        _ source: SourceImage, options: ProcessingOptions, components: BlurHashComponents?, metrics: ServiceMetrics,
        decodes: SharedCount
    ) throws(ImageServiceError) -> RenderedResult {
        var header = try limits.checkHeader(source.data, format: source.format)
        // `hdr` and the bit depth: the coders' header readers find gain maps, CICP transfers
        // and depths; the generic header reader does not.
        let coded = Self.hdrFormats.contains(source.format) ? try? CodersManager.shared.readMetadata(source.data) : nil
        if let coded {
            header.gainMap = coded.gainMap
            header.gainMapIssue = coded.gainMapIssue
            header.bitDepth = coded.bitDepth
        }
        decodes.increment()
        let decodeStart = ContinuousClock.now
        let image = try infoDecode(source.data, header: header, options: options, metrics: metrics)
        metrics.recordStage("decode", ContinuousClock.now - decodeStart)
        let processStart = ContinuousClock.now
        let summary = ImagePlaceholder.summary(of: image, blurHashComponents: components)
        let info = ImageInfo(
            metadata: header, durationMs: animationDurationMs(source.data, header: header), bytes: source.data.count,
            summary: summary)
        var answer = info
        answer.hdr = HDRInfo(metadata: header, profile: coded?.colorProfile ?? header.colorProfile)
        let body = try answer.json()
        metrics.recordStage("process", ContinuousClock.now - processStart)
        return RenderedResult(body: ByteBuffer(bytes: body), format: nil)
    }

    /// The small decode the placeholders are computed from: a JPEG, still WebP or still
    /// non-interlaced PNG at least twice ``ImagePlaceholder/sourceDecodeSide`` on its long side
    /// is decoded reduced by the largest factor its decoder offers that keeps that side at least
    /// ``ImagePlaceholder/sourceDecodeSide`` (the reduced decoders of ``ShrinkOnLoad``; no
    /// full-size buffer); any other source is decoded with ``ImagePlaceholder/decodeOptions(_:)``
    /// (first frame, thumbnail). The decode's scale is recorded in `metrics`.
    func infoDecode(_ data: Data, header: ImageMetadata, options: ProcessingOptions, metrics: ServiceMetrics) throws(ImageServiceError) -> Image {
        var decodeOptions = DecodeOptions()
        decodeOptions.applyOrientation = options.autoRotate ?? true
        decodeOptions.colorManagement = (options.stripColorProfile ?? stripColorProfile) ? .convertToSRGB : .preserve
        limits.applied(to: &decodeOptions)
        decodeOptions = ImagePlaceholder.decodeOptions(decodeOptions)
        do {
            if let (decoder, denominator) = infoReduction(data, header: header) {
                metrics.recordDecode(scaleDenominator: denominator)
                return try decoder.decode(data, scaleDenominator: denominator, options: decodeOptions)
            }
            metrics.recordDecode(scaleDenominator: 1)
            return try decodeWhole(data, format: header.format, options: decodeOptions)
        } catch let error as WebImageError {
            if case .imageTooLarge(let reason) = error { throw .tooLarge(reason) }
            if case .unsupportedFormat = error { throw .notAnImage }
            throw .unprocessable(error.description)
        } catch {
            throw .unprocessable("\(error)")
        }
    }

    /// The reduced decoder and factor for an `/info` decode of `data`, or `nil` for the
    /// thumbnail decode (a file no reduced decoder takes, or a reduction under 2).
    func infoReduction(_ data: Data, header: ImageMetadata) -> (any ReducedImageDecoding, Int)? {
        guard let decoder = coders.reducedDecoder(for: data) else { return nil }
        let stored = header.pixelSize
        let chosen = type(of: decoder).reducedDecodeDenominators.filter { denominator in
            let reduced = type(of: decoder).reducedSize(of: stored, scaleDenominator: denominator)
            return max(reduced.width, reduced.height) >= ImagePlaceholder.sourceDecodeSide
        }.max()
        return chosen.map { (decoder, $0) }
    }

    /// The total duration of an animated `data` in milliseconds, from its frame table (no
    /// frame is decoded); 0 for a still image.
    func animationDurationMs(_ data: Data, header: ImageMetadata) -> Int {
        // Every frame's entry: the first-frame options of the placeholder decode would list one.
        var options = DecodeOptions()
        limits.applied(to: &options)
        guard (header.frameCount ?? 1) > 1, let decoder = coders.animatedDecoder(for: data),
            let animation = try? decoder.makeAnimatedSource(data, options: options)
        else { return 0 }
        var seconds = 0.0
        for index in 0..<animation.frameCount { seconds += animation.duration(ofFrame: index) }
        return Int((seconds * 1000).rounded())
    }
}
