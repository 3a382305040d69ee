import Foundation
import WebImage

/// A decoded source: full size, or reduced while decoding (``ShrinkOnLoad``).
struct DecodedSource: Sendable {
    var image: Image
    /// How `image` relates to the full size, `nil` when it is the full size.
    var reduction: ReducedSource?
}

/// The service's processing pipeline for one request (SPEC V-2, V-5, V-6): header check,
/// decode, auto-rotate, rotate, trim, crop, scale, result crop, extend, background, blur,
/// sharpen, encode. Pure and synchronous: the caller runs it on the processing pool.
struct ImageProcessor: Sendable {
    var coders: CodersManager = .shared
    var limits = ProcessingLimits()
    /// Whether JPEG, still WebP and PNG sources may be decoded reduced (``ShrinkOnLoad``); off, every source is
    /// decoded at full size (tests compare the two).
    var shrinkOnLoad = true
    /// The service's `strip-color-profile` setting: convert to sRGB (default) or keep the
    /// source's profile, when the URL has no `scp` option.
    var stripColorProfile = true

    /// imgproxy's per-format default qualities.
    static func defaultQuality(for format: OutputFormat) -> Int {
        switch format {
        case .avif: 65
        case .webp: 79
        default: 80
        }
    }

    /// Checks the result `options` plan for a source described by `metadata` against the
    /// result limits (``ProcessingBudget``), before decoding: the plan is made on the header's
    /// size as the decoder will orient it and `rotate` turns it. Trimming can only make it
    /// smaller; ``transform(_:options:)`` checks the exact plan again.
    func checkPlan(_ metadata: ImageMetadata, options: ProcessingOptions, keepAnimation: Bool) throws(ImageServiceError) {
        var size = metadata.pixelSize
        let oriented = (options.autoRotate ?? true) && metadata.orientation.swapsDimensions
        if oriented != (options.rotate % 180 != 0) { size = PixelSize(width: size.height, height: size.width) }
        let plan = GeometryPlan(source: size, options: options)
        let frames = keepAnimation ? max(1, metadata.frameCount ?? 1) : 1
        try ProcessingBudget(limits: limits).check(output: plan.outputSize, frames: frames, options: options)
    }

    /// Checks the header's declared size and frames against the limits, without decoding.
    /// - Throws: ``ImageServiceError/notAnImage``, ``ImageServiceError/tooLarge(_:)``.
    func checkHeader(_ data: Data) throws(ImageServiceError) -> ImageMetadata {
        let metadata: ImageMetadata
        do { metadata = try ImageHeaderReader.read(data) } catch {
            if ImageFormat.detect(data) == .unknown { throw .notAnImage }
            throw .unprocessable("unreadable header")
        }
        let pixels = metadata.pixelSize.pixelCount
        guard pixels <= limits.maxSourcePixels else {
            throw .tooLarge("\(metadata.pixelSize) exceeds \(limits.maxSourcePixels) pixels")
        }
        if let frames = metadata.frameCount {
            guard frames <= limits.maxAnimationFrames else {
                throw .tooLarge("\(frames) frames exceed \(limits.maxAnimationFrames)")
            }
            let (total, overflow) = pixels.multipliedReportingOverflow(by: max(frames, 1))
            guard !overflow, total <= limits.maxTotalAnimationPixels else {
                throw .tooLarge("animation exceeds \(limits.maxTotalAnimationPixels) pixels")
            }
        }
        return metadata
    }

    /// Decodes `data` with the limits applied again by the decoder. A JPEG, still WebP or PNG the
    /// request scales down by 2 or more is decoded reduced (see ``ShrinkOnLoad``) unless
    /// ``shrinkOnLoad`` is off.
    func decode(_ data: Data, options: ProcessingOptions, keepAnimation: Bool) throws(ImageServiceError) -> DecodedSource {
        var decodeOptions = DecodeOptions()
        decodeOptions.applyOrientation = options.autoRotate ?? true
        decodeOptions.colorManagement = (options.stripColorProfile ?? stripColorProfile) ? .convertToSRGB : .preserve
        decodeOptions.firstFrameOnly = !keepAnimation
        decodeOptions.limits.maxPixelCount = limits.maxSourcePixels
        decodeOptions.limits.maxFrameCount = limits.maxAnimationFrames
        decodeOptions.limits.maxTotalAnimationPixels = limits.maxTotalAnimationPixels
        do {
            if shrinkOnLoad, let reduced = try decodeReduced(data, options: options, decodeOptions: decodeOptions) {
                return reduced
            }
            return DecodedSource(image: try coders.decode(data, options: decodeOptions), reduction: nil)
        } catch let error as WebImageError {
            if case .imageTooLarge(let reason) = error { throw .tooLarge(reason) }
            if case .unsupportedFormat = error { throw .notAnImage }
            throw .unprocessable(error.description)
        } catch {
            throw .unprocessable("\(error)")
        }
    }

    /// `data` decoded reduced when it is a JPEG, a still WebP or a still non-interlaced PNG that
    /// `options` scale down by 2 or more (``ShrinkOnLoad``); `nil` for a full-size decode. The header is read as the decoder
    /// itself reads it, so its orientation is the one applied; unreadable, the full decode
    /// reports why.
    private func decodeReduced(_ data: Data, options: ProcessingOptions, decodeOptions: DecodeOptions) throws -> DecodedSource? {
        let decoder: ReducedDecoder, header: ImageMetadata
        switch ImageFormat.detect(data) {
        case .jpeg:
            guard let metadata = try? JPEGCoder().readMetadata(data) else { return nil }
            (decoder, header) = (.jpeg, metadata)
        case .webp:
            // Animations are composited frame by frame at canvas size, as before.
            let webp = WebPCoder()
            guard webp.isStill(data), let metadata = try? webp.readMetadata(data) else { return nil }
            (decoder, header) = (.webp, metadata)
        case .png:
            // Interlaced files and APNG animations decode at full size, as before.
            let png = PNGCoder()
            guard png.canDecodeReduced(data), let metadata = try? png.readMetadata(data) else { return nil }
            (decoder, header) = (.png, metadata)
        default:
            return nil
        }
        let geometry = ShrinkOnLoad(
            storedSize: header.pixelSize, orientation: decodeOptions.applyOrientation ? header.orientation : .up,
            rotate: options.rotate, decoder: decoder)
        let denominator = geometry.denominator(for: options)
        guard denominator > 1 else { return nil }
        let image = switch decoder {
        case .jpeg: try JPEGCoder().decode(data, scaleDenominator: denominator, options: decodeOptions)
        case .webp: try WebPCoder().decode(data, scaleDenominator: denominator, options: decodeOptions)
        case .png: try PNGCoder().decode(data, scaleDenominator: denominator, options: decodeOptions)
        }
        return DecodedSource(image: image, reduction: geometry.reduction(denominator))
    }

    /// Applies every geometry and filter option to a full-size `image`.
    func transform(_ image: Image, options: ProcessingOptions) throws(ImageServiceError) -> Image {
        try transform(DecodedSource(image: image, reduction: nil), options: options)
    }

    /// Applies every geometry and filter option to `source`. The geometry is planned on the
    /// full size; a reduced source's pixels are resampled from the plan's region mapped onto them.
    func transform(_ source: DecodedSource, options: ProcessingOptions) throws(ImageServiceError) -> Image {
        var current = source.image
        let reduction = source.reduction
        if options.rotate != 0 {
            guard let rotated = RotateTransformer(angle: Double(options.rotate)).transform(current, key: "") else {
                throw .unprocessable("rotation failed")
            }
            current = rotated
        }
        if let trim = options.trim, reduction == nil, !current.isAnimated, let box = Trimming.box(of: current.pixels, trim: trim),
           let trimmed = current.mappingFrames({ $0.cropped(to: box) }) {
            current = trimmed
        }
        let plan = GeometryPlan(source: reduction?.fullSize ?? current.pixelSize, options: options) { area in
            SmartGravity.center(of: current.pixels, in: area)
        }
        try ProcessingBudget(limits: limits).check(output: plan.outputSize, frames: current.frames.count, options: options)
        let resampler = Resampler()
        // A cancelled job (deadline passed, client gone) stops between steps; the steps' own
        // loops stop within a row (``WorkCancellation``).
        let cancellation = WorkCancellation.current
        let mapped = current.mappingFrames { pixels -> PixelBuffer? in
            func stopped() -> Bool { cancellation?.isCancelled == true }
            if stopped() { return nil }
            var frame = Self.resample(pixels, plan: plan, resampler: resampler, reduction: reduction)
            if let canvas = plan.canvas, !stopped() {
                frame = Self.extend(frame, to: canvas.size, at: canvas.origin, background: options.background)
            }
            if let background = options.background, !stopped() { frame = Self.flatten(frame, on: background) }
            if options.blur > 0, !stopped() { frame = frame.blurredExactly(sigma: min(options.blur, 50)) }
            if options.sharpen > 0, !stopped() { frame = Sharpening.sharpened(frame, sigma: options.sharpen) }
            return stopped() ? nil : frame
        }
        if cancellation?.isCancelled == true { throw .timedOut }
        guard let result = mapped else { throw .unprocessable("transform failed") }
        if options.background != nil { return result.replacing(frames: result.frames, hasAlpha: false) }
        return result
    }

    /// Encodes `image` as `format` with the request's quality and byte limit.
    func encode(_ image: Image, as format: OutputFormat, options: ProcessingOptions) throws(ImageServiceError) -> Data {
        let quality = options.quality > 0 ? options.quality : (options.formatQuality[format] ?? Self.defaultQuality(for: format))
        let encodeOptions = EncodeOptions(
            quality: Double(quality) / 100,
            maxFileSize: options.maxBytes > 0 ? options.maxBytes : nil,
            keepAnimation: format.isAnimatable)
        do {
            return try coders.encode(image, format: format.imageFormat, options: encodeOptions)
        } catch WebImageError.cancelled {
            throw .timedOut
        } catch {
            throw .unprocessable("encoding \(format.rawValue) failed")
        }
    }

    /// One resample from the source crop's kept part straight to the kept size; from a reduced
    /// source, the same region mapped onto its pixels.
    static func resample(_ pixels: PixelBuffer, plan: GeometryPlan, resampler: Resampler, reduction: ReducedSource? = nil) -> PixelBuffer {
        let area = plan.sourceCrop, scaled = plan.scaledSize, keep = plan.resultCrop
        let fx = Double(area.width) / Double(scaled.width), fy = Double(area.height) / Double(scaled.height)
        if fx == 1, fy == 1, reduction == nil {
            let rect = PixelRect(x: area.x + keep.x, y: area.y + keep.y, width: keep.width, height: keep.height)
            if rect.x == 0, rect.y == 0, rect.width == pixels.width, rect.height == pixels.height { return pixels }
            return pixels.cropped(to: rect) ?? pixels
        }
        var region = ResampleRegion(
            x: Double(area.x) + Double(keep.x) * fx, y: Double(area.y) + Double(keep.y) * fy,
            width: Double(keep.width) * fx, height: Double(keep.height) * fy)
        if let reduction {
            region = reduction.map(region)
            // Reduced exactly to the kept size on whole pixels (4000×3000 at 1/8 → 500×375):
            // the decoder's block average is the result, as a plain crop.
            if region.width == Double(keep.width), region.height == Double(keep.height),
               region.x == region.x.rounded(), region.y == region.y.rounded() {
                let rect = PixelRect(x: Int(region.x), y: Int(region.y), width: keep.width, height: keep.height)
                if rect.x == 0, rect.y == 0, rect.width == pixels.width, rect.height == pixels.height { return pixels }
                if let cropped = pixels.cropped(to: rect) { return cropped }
            }
        }
        return resampler.resample(pixels, to: PixelSize(width: keep.width, height: keep.height), region: region)
    }

    /// `pixels` placed on a `size` canvas at `origin`, the rest `background` (transparent if nil).
    static func extend(_ pixels: PixelBuffer, to size: PixelSize, at origin: (x: Int, y: Int), background: RGBColor?) -> PixelBuffer {
        let fill: [UInt8] = background.map { [$0.red, $0.green, $0.blue, 255] } ?? [0, 0, 0, 0]
        return PixelBuffer.make(width: size.width, height: size.height) { out in
            for index in stride(from: 0, to: out.count, by: 4) {
                out[index] = fill[0]; out[index + 1] = fill[1]; out[index + 2] = fill[2]; out[index + 3] = fill[3]
            }
            pixels.bytes.withUnsafeBufferPointer { source in
                let rowBytes = pixels.width * 4
                for row in 0..<pixels.height {
                    let target = ((origin.y + row) * size.width + origin.x) * 4
                    for byte in 0..<rowBytes { out[target + byte] = source[row * rowBytes + byte] }
                }
            }
        }
    }

    /// `pixels` composited over an opaque `color`.
    static func flatten(_ pixels: PixelBuffer, on color: RGBColor) -> PixelBuffer {
        let background = [Int(color.red), Int(color.green), Int(color.blue)]
        return PixelBuffer.make(width: pixels.width, height: pixels.height) { out in
            pixels.bytes.withUnsafeBufferPointer { source in
                for index in stride(from: 0, to: source.count, by: 4) {
                    let alpha = Int(source[index + 3])
                    for channel in 0..<3 {
                        out[index + channel] = UInt8((Int(source[index + channel]) * alpha + background[channel] * (255 - alpha) + 127) / 255)
                    }
                    out[index + 3] = 255
                }
            }
        }
    }
}
