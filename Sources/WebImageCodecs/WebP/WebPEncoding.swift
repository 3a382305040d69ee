import CWebP
import Foundation
import WebImageCore

/// WebP encoding: still images (lossy or lossless, with alpha) and animations.
enum WebPEncoding {
    /// Encodes `image` per `options` (size cap, quality, lossless, file-size target, animation).
    static func encode(_ image: Image, options: EncodeOptions) throws -> Data {
        let source = options.preparedImage(image)
        let lossless = options.lossless
        if let maxBytes = options.maxFileSize, !lossless, options.webp.compression == .lossy {
            return try FileSizeSearch.encode(source, maxBytes: maxBytes, startQuality: options.clampedQuality) {
                try encode($0, quality: $1, lossless: false, settings: options.webp)
            }
        }
        return try encode(source, quality: options.clampedQuality, lossless: lossless, settings: options.webp)
    }

    /// One encode at a fixed quality (0…1), through ``WebPFrameWriter``.
    static func encode(_ image: Image, quality: Double, lossless: Bool, settings: WebPEncodeSettings = WebPEncodeSettings()) throws -> Data {
        let writer = try WebPFrameWriter(
            size: image.pixelSize, loopCount: image.loopCount, hasAlpha: image.hasAlpha,
            config: makeConfig(quality: quality, lossless: lossless, settings: settings))
        return try FrameByFrameEncoder.encode(image, with: writer)
    }

    /// libwebp's preset for `preset`.
    static func libraryPreset(_ preset: WebPEncodeSettings.Preset) -> WebPPreset {
        switch preset {
        case .default: WEBP_PRESET_DEFAULT
        case .photo: WEBP_PRESET_PHOTO
        case .picture: WEBP_PRESET_PICTURE
        case .drawing: WEBP_PRESET_DRAWING
        case .icon: WEBP_PRESET_ICON
        case .text: WEBP_PRESET_TEXT
        }
    }

    /// The encoder's configuration: `settings`' preset at `quality`, then its method (lossless
    /// when `lossless` or asked for; near-lossless with the quality as its level) and sharp YUV.
    static func makeConfig(quality: Double, lossless: Bool, settings: WebPEncodeSettings = WebPEncodeSettings()) throws -> WebPConfig {
        var config = WebPConfig()
        let percent = Float(min(1, max(0, quality)) * 100)
        // At 75, libwebp's own default: lossless keeps it as its effort.
        guard WebPConfigInitInternal(&config, libraryPreset(settings.preset), 75, WEBP_ENCODER_ABI_VERSION) != 0 else {
            throw WebImageError.encodingFailed(reason: "libwebp encoder ABI mismatch")
        }
        if settings.smartSubsample { config.use_sharp_yuv = 1 }
        if settings.compression == .nearLossless, !lossless {
            // libvips' mapping: the quality is the near-lossless level (100 = off).
            config.lossless = 1
            config.near_lossless = Int32(percent.rounded())
            config.exact = 1
        } else if lossless || settings.compression == .lossless {
            // Quality means effort for lossless; libwebp's default (75) is its balanced preset.
            config.lossless = 1
            // Keep the colour of fully transparent pixels, so the round trip is exact.
            config.exact = 1
        } else {
            config.quality = percent
        }
        guard WebPValidateConfig(&config) != 0 else {
            throw WebImageError.encodingFailed(reason: "invalid WebP configuration")
        }
        return config
    }

    /// Fills `picture` (already initialised) with `pixels` as ARGB.
    static func importPixels(_ pixels: PixelBuffer, hasAlpha: Bool, into picture: inout WebPPicture) throws {
        picture.use_argb = 1
        picture.width = Int32(pixels.width)
        picture.height = Int32(pixels.height)
        let opaque = !hasAlpha || pixels.isFullyOpaque()
        let stride = Int32(pixels.bytesPerRow)
        let ok = pixels.bytes.withUnsafeBufferPointer { bytes -> Int32 in
            guard let base = bytes.baseAddress else { return 0 }
            return opaque
                ? WebPPictureImportRGBX(&picture, base, stride)
                : WebPPictureImportRGBA(&picture, base, stride)
        }
        guard ok != 0 else {
            throw WebImageError.encodingFailed(reason: "WebP: \(WebPSupport.describe(picture.error_code))")
        }
    }

    static func encodeStill(_ pixels: PixelBuffer, hasAlpha: Bool, config: inout WebPConfig) throws -> Data {
        guard pixels.width <= Int(WEBP_MAX_DIMENSION), pixels.height <= Int(WEBP_MAX_DIMENSION) else {
            throw WebImageError.encodingFailed(reason: "\(pixels.width)x\(pixels.height) exceeds WebP's 16383 pixel limit")
        }
        var picture = WebPPicture()
        guard WebPPictureInit(&picture) != 0 else {
            throw WebImageError.encodingFailed(reason: "libwebp encoder ABI mismatch")
        }
        defer { WebPPictureFree(&picture) }
        try importPixels(pixels, hasAlpha: hasAlpha, into: &picture)

        var writer = WebPMemoryWriter()
        WebPMemoryWriterInit(&writer)
        defer { WebPMemoryWriterClear(&writer) }
        let ok = withUnsafeMutablePointer(to: &writer) { writerPointer -> Int32 in
            picture.writer = WebPMemoryWrite
            picture.custom_ptr = UnsafeMutableRawPointer(writerPointer)
            // On the processing pool, a cancelled job aborts the encode at libwebp's next
            // progress report (``WorkCancellation``).
            if WorkCancellation.current != nil {
                picture.progress_hook = { _, _ in WorkCancellation.isCurrentCancelled ? 0 : 1 }
            }
            return WebPEncode(&config, &picture)
        }
        if ok == 0, picture.error_code == VP8_ENC_ERROR_USER_ABORT { throw WebImageError.cancelled }
        guard ok != 0, let memory = writer.mem else {
            throw WebImageError.encodingFailed(reason: "WebP: \(WebPSupport.describe(picture.error_code))")
        }
        return Data(bytes: memory, count: writer.size)
    }

    /// A frame duration in whole milliseconds, at least 1 and at most WebP's 24-bit maximum.
    static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 1 }
        return Int(min(max((seconds * 1000).rounded(), 1), 16_777_215))
    }
}
