import CWebP
import Foundation
import WebImageCore

/// Progressive decoding of a still WebP while its bytes arrive (SPEC D-8).
///
/// libwebp's incremental decoder writes rows into a buffer this object owns; every update that
/// decodes more rows returns a partial image (rows not decoded yet are transparent), and the
/// update that completes the bitstream returns the full image. Animated files show nothing
/// until complete and are then decoded in full. The limits are checked from the header before
/// the output buffer is allocated.
///
/// One instance per download, called serially by its owner (not thread-safe).
public final class WebPIncrementalDecoder: IncrementalImageDecoder {
    private let options: DecodeOptions
    /// The decoder configuration; libwebp keeps a pointer to it, so its address is stable.
    private let config: UnsafeMutablePointer<WebPDecoderConfig>
    private var decoder: OpaquePointer?
    private var output: UnsafeMutableRawPointer?
    private var outputSize = PixelSize(width: 0, height: 0)
    private var hasAlpha = true
    /// Bytes handed to libwebp so far.
    private var consumed = 0
    /// Rows shown in the last partial image.
    private var shownRows = 0
    /// The file is an animation: wait for all bytes, then decode it in full.
    private var waitsForCompleteData = false
    /// An error met before the data was complete, reported when it is.
    private var pendingError: WebImageError?
    private var finalImage: Image?

    /// A decoder for one download, producing images as `options` ask (thumbnail size, limits).
    public init(options: DecodeOptions = .default) {
        self.options = options
        config = UnsafeMutablePointer<WebPDecoderConfig>.allocate(capacity: 1)
        config.initialize(to: WebPDecoderConfig())
    }

    deinit {
        release()
        config.deinitialize(count: 1)
        config.deallocate()
    }

    /// Feeds the bytes received so far; see ``/WebImageCore/IncrementalImageDecoder/update(_:isComplete:)``.
    public func update(_ data: Data, isComplete: Bool) throws -> Image? {
        if let finalImage { return finalImage }
        if decoder == nil && pendingError == nil && (isComplete || waitsForCompleteData) {
            // Everything at once (or an animation): a plain decode is the cheapest path.
            guard isComplete else { return nil }
            let image = try WebPCoder().decode(data, options: options)
            finalImage = image
            return image
        }
        if let pendingError {
            if isComplete { throw pendingError }
            return nil
        }
        do {
            return try feed(data, isComplete: isComplete)
        } catch let error as WebImageError {
            release()
            if isComplete { throw error }
            pendingError = error
            return nil
        }
    }

    /// Starts libwebp's decoder once the header is readable, then appends the new bytes.
    private func feed(_ data: Data, isComplete: Bool) throws -> Image? {
        if decoder == nil {
            guard try start(with: data) else { return nil }
        }
        guard let decoder else { return nil }
        guard data.count >= consumed else {
            throw WebImageError.badImageData(reason: "WebP progressive data shrank between updates")
        }
        var status = VP8_STATUS_SUSPENDED
        if data.count > consumed {
            status = data.withUnsafeBytes { raw -> VP8StatusCode in
                guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                    return VP8_STATUS_NOT_ENOUGH_DATA
                }
                return WebPIAppend(decoder, base + consumed, raw.count - consumed)
            }
            consumed = data.count
        }
        switch status {
        case VP8_STATUS_OK:
            let profile = options.colorManagement == .ignore ? nil : WebPICCProfile.read(data)
            let image = makeImage().map { ColorConversion.finish($0, profile: profile, options: options) }
            finalImage = image
            release()
            return image
        case VP8_STATUS_SUSPENDED:
            if isComplete {
                throw WebImageError.badImageData(reason: "WebP: \(WebPSupport.describe(VP8_STATUS_NOT_ENOUGH_DATA))")
            }
            var lastRow: Int32 = 0
            guard WebPIDecGetRGB(decoder, &lastRow, nil, nil, nil) != nil, Int(lastRow) > shownRows else {
                return nil
            }
            shownRows = Int(lastRow)
            return makeImage()
        default:
            throw WebImageError.badImageData(reason: "WebP: \(WebPSupport.describe(status))")
        }
    }

    /// Reads the header; when complete enough, checks the limits and creates the decoder.
    /// Returns `false` while the header is still incomplete.
    private func start(with data: Data) throws -> Bool {
        var features = WebPBitstreamFeatures()
        let status = data.withUnsafeBytes { raw -> VP8StatusCode in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                return VP8_STATUS_NOT_ENOUGH_DATA
            }
            return WebPGetFeatures(base, raw.count, &features)
        }
        if status == VP8_STATUS_NOT_ENOUGH_DATA { return false }
        guard status == VP8_STATUS_OK else {
            throw WebImageError.badImageData(reason: "WebP header: \(WebPSupport.describe(status))")
        }
        // Animations, and files whose EXIF (stored after the image data) may turn the image:
        // decoded once complete, so no partial image is shown in the wrong orientation.
        if features.has_animation != 0 || WebPEXIF.announcesEXIF(data) {
            waitsForCompleteData = true
            return false
        }
        let full = PixelSize(width: Int(features.width), height: Int(features.height))
        try options.limits.check(canvas: full)
        let target = options.targetSize(for: full)

        guard WebPInitDecoderConfig(config) != 0 else {
            throw WebImageError.unsupportedFormat(.webp, reason: "libwebp decoder ABI mismatch")
        }
        if target != full {
            config.pointee.options.use_scaling = 1
            config.pointee.options.scaled_width = Int32(target.width)
            config.pointee.options.scaled_height = Int32(target.height)
        }
        let byteCount = target.width * target.height * PixelBuffer.bytesPerPixel
        // Zeroed so that rows not decoded yet show as transparent in partial images.
        guard let memory = calloc(byteCount, 1) else {
            throw WebImageError.imageTooLarge(reason: "cannot allocate \(byteCount) bytes for \(target)")
        }
        output = memory
        config.pointee.output.colorspace = MODE_RGBA
        config.pointee.output.is_external_memory = 1
        config.pointee.output.u.RGBA.rgba = memory.assumingMemoryBound(to: UInt8.self)
        config.pointee.output.u.RGBA.stride = Int32(target.width * PixelBuffer.bytesPerPixel)
        config.pointee.output.u.RGBA.size = byteCount
        guard let decoder = WebPIDecode(nil, 0, config) else {
            throw WebImageError.badImageData(reason: "WebP: cannot start the incremental decoder")
        }
        self.decoder = decoder
        outputSize = target
        hasAlpha = features.has_alpha != 0
        return true
    }

    /// The output buffer as an image (a copy: libwebp keeps writing into the buffer).
    private func makeImage() -> Image? {
        guard let output else { return nil }
        let count = outputSize.width * outputSize.height * PixelBuffer.bytesPerPixel
        let pixels = PixelBuffer.make(width: outputSize.width, height: outputSize.height) { out in
            out.baseAddress?.update(from: output.assumingMemoryBound(to: UInt8.self), count: count)
        }
        return Image(pixels: pixels, scale: options.imageScale, format: .webp, hasAlpha: hasAlpha)
    }

    /// Frees libwebp's decoder and the output buffer.
    private func release() {
        if let decoder { WebPIDelete(decoder) }
        decoder = nil
        WebPFreeDecBuffer(&config.pointee.output)
        free(output)
        output = nil
    }
}
