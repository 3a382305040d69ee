import CWebP
import Foundation
import WebImageCore

/// WebP encoding: still images (lossy or lossless, with alpha) and animations.
enum WebPEncoding {
    /// Encodes `image` per `options` (size cap, quality, lossless, file-size target, animation).
    static func encode(_ image: Image, options: EncodeOptions) throws -> Data {
        let source = options.preparedImage(image)
        let lossless = options.lossless
        if let maxBytes = options.maxFileSize, !lossless {
            return try FileSizeSearch.encode(source, maxBytes: maxBytes, startQuality: options.clampedQuality) {
                try encode($0, quality: $1, lossless: false)
            }
        }
        return try encode(source, quality: options.clampedQuality, lossless: lossless)
    }

    /// One encode at a fixed quality (0…1).
    static func encode(_ image: Image, quality: Double, lossless: Bool) throws -> Data {
        var config = try makeConfig(quality: quality, lossless: lossless)
        if image.frames.count > 1 {
            return try encodeAnimation(image, config: &config)
        }
        return try encodeStill(image.pixels, hasAlpha: image.hasAlpha, config: &config)
    }

    private static func makeConfig(quality: Double, lossless: Bool) throws -> WebPConfig {
        var config = WebPConfig()
        guard WebPConfigInit(&config) != 0 else {
            throw WebImageError.encodingFailed(reason: "libwebp encoder ABI mismatch")
        }
        if lossless {
            // Quality means effort for lossless; libwebp's default (75) is its balanced preset.
            config.lossless = 1
            // Keep the colour of fully transparent pixels, so the round trip is exact.
            config.exact = 1
        } else {
            config.quality = Float(min(1, max(0, quality)) * 100)
        }
        guard WebPValidateConfig(&config) != 0 else {
            throw WebImageError.encodingFailed(reason: "invalid WebP configuration")
        }
        return config
    }

    /// Fills `picture` (already initialised) with `pixels` as ARGB.
    private static func importPixels(_ pixels: PixelBuffer, hasAlpha: Bool, into picture: inout WebPPicture) throws {
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

    private static func encodeStill(_ pixels: PixelBuffer, hasAlpha: Bool, config: inout WebPConfig) throws -> Data {
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
            return WebPEncode(&config, &picture)
        }
        guard ok != 0, let memory = writer.mem else {
            throw WebImageError.encodingFailed(reason: "WebP: \(WebPSupport.describe(picture.error_code))")
        }
        return Data(bytes: memory, count: writer.size)
    }

    private static func encodeAnimation(_ image: Image, config: inout WebPConfig) throws -> Data {
        let width = image.width
        let height = image.height
        guard width <= Int(WEBP_MAX_DIMENSION), height <= Int(WEBP_MAX_DIMENSION) else {
            throw WebImageError.encodingFailed(reason: "\(width)x\(height) exceeds WebP's 16383 pixel limit")
        }
        var encoderOptions = WebPAnimEncoderOptions()
        guard WebPAnimEncoderOptionsInit(&encoderOptions) != 0 else {
            throw WebImageError.encodingFailed(reason: "libwebp mux ABI mismatch")
        }
        // The container stores the loop count in 16 bits.
        encoderOptions.anim_params.loop_count = Int32(min(max(image.loopCount, 0), 65_535))
        guard let encoder = WebPAnimEncoderNew(Int32(width), Int32(height), &encoderOptions) else {
            throw WebImageError.encodingFailed(reason: "WebP: cannot create the animation encoder")
        }
        defer { WebPAnimEncoderDelete(encoder) }

        func failure(_ what: String) -> WebImageError {
            let detail = WebPAnimEncoderGetError(encoder).map { String(cString: $0) } ?? ""
            return WebImageError.encodingFailed(reason: "WebP animation: \(what)\(detail.isEmpty ? "" : ": \(detail)")")
        }

        var timestamp = 0
        for frame in image.frames {
            guard frame.pixels.width == width, frame.pixels.height == height else {
                throw WebImageError.encodingFailed(reason: "WebP animation: frames differ in size")
            }
            var picture = WebPPicture()
            guard WebPPictureInit(&picture) != 0 else {
                throw WebImageError.encodingFailed(reason: "libwebp encoder ABI mismatch")
            }
            defer { WebPPictureFree(&picture) }
            try importPixels(frame.pixels, hasAlpha: image.hasAlpha, into: &picture)
            guard let start = Int32(exactly: timestamp) else {
                throw WebImageError.encodingFailed(reason: "WebP animation longer than \(Int32.max) ms")
            }
            guard WebPAnimEncoderAdd(encoder, &picture, start, &config) != 0 else {
                throw failure("adding a frame failed")
            }
            timestamp += milliseconds(frame.duration)
        }
        guard let end = Int32(exactly: timestamp) else {
            throw WebImageError.encodingFailed(reason: "WebP animation longer than \(Int32.max) ms")
        }
        guard WebPAnimEncoderAdd(encoder, nil, end, nil) != 0 else {
            throw failure("closing the animation failed")
        }
        var output = WebPData()
        WebPDataInit(&output)
        defer { WebPDataClear(&output) }
        guard WebPAnimEncoderAssemble(encoder, &output) != 0, let bytes = output.bytes else {
            throw failure("assembling failed")
        }
        return Data(bytes: bytes, count: output.size)
    }

    /// A frame duration in whole milliseconds, at least 1 and at most WebP's 24-bit maximum.
    private static func milliseconds(_ seconds: Double) -> Int {
        guard seconds.isFinite, seconds > 0 else { return 1 }
        return Int(min(max((seconds * 1000).rounded(), 1), 16_777_215))
    }
}
