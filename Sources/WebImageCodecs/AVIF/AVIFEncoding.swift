import CAVIF
import Foundation
import WebImageCore

/// AVIF encoding with libavif (libaom): still images and image sequences, lossy (4:2:0, or
/// 4:4:4 per ``/WebImageCore/AVIFEncodeSettings``) or lossless (4:4:4, identity matrix), with
/// alpha.
///
/// Quality 0…1 maps linearly onto AV1's quantizer 63…0 (colour and alpha alike), as libavif
/// 1.x's own `quality` setting does. libaom's speed comes from the settings: by default 9 for
/// images up to 1.2 MP (with the quantizer lowered two or three steps, so the score matches
/// speed 8's) and 8 above — the measured trade-off is in docs/PERFORMANCE.md. One thread
/// per encode (the ProcessingPool bounds parallelism). Image sequences loop forever (libavif
/// 0.11 writes no repetition count).
enum AVIFEncoding {
    /// Encodes `image` per `options` (size cap, quality, lossless, file-size target, animation).
    static func encode(_ image: Image, options: EncodeOptions) throws -> Data {
        var source = options.preparedImage(image, keepingHighBitDepth: true)
        // An RGBA16 image is written at 10 or 12 bits; a 16-bit animation at 8 (like APNG).
        if source.frames.count > 1 { source = EightBitOutput.prepare(source) }
        let depth = source.pixelFormat == .rgba16 ? (options.highBitDepth == 12 ? 12 : 10) : 8
        if let maxBytes = options.maxFileSize, !options.lossless {
            return try FileSizeSearch.encode(source, maxBytes: maxBytes, startQuality: options.clampedQuality) {
                try encode($0, quality: $1, lossless: false, depth: depth, settings: options.avif)
            }
        }
        return try encode(source, quality: options.clampedQuality, lossless: options.lossless, depth: depth, settings: options.avif)
    }

    /// One encode at a fixed quality (0…1), through ``AVIFFrameWriter``.
    static func encode(
        _ image: Image, quality: Double, lossless: Bool, depth: Int = 8, settings: AVIFEncodeSettings = AVIFEncodeSettings()
    ) throws -> Data {
        let opaque = !image.hasAlpha || image.frames.allSatisfy { $0.pixels.isFullyOpaque() }
        let writer = AVIFFrameWriter(
            quality: quality, lossless: lossless, opaque: opaque, settings: settings,
            pixelCount: image.width * image.height, iccProfile: EmbeddedProfile.iccData(for: image))
        if depth > 8 { writer.highBitDepth = AVIFHighBitDepth(depth: depth, cicp: image.cicp) }
        return try FrameByFrameEncoder.encode(image, with: writer, keepingHighBitDepth: depth > 8)
    }

    /// What one file is encoded with: libaom's speed, the AV1 quantizer and whether chroma is
    /// halved.
    struct Tuning: Equatable {
        var speed: Int32
        var quantizer: Int32
        var subsampled: Bool

        init(quality: Double, lossless: Bool, settings: AVIFEncodeSettings, pixelCount: Int) {
            speed = Int32(settings.speed(forPixelCount: pixelCount))
            let asked = Int32((1 - min(1, max(0, quality))) * 63 + 0.5)
            quantizer = lossless ? Int32(AVIF_QUANTIZER_LOSSLESS) : max(0, asked - Int32(settings.quantizerLift(forPixelCount: pixelCount)))
            subsampled = !lossless && settings.subsamples(atQuality: quality)
        }
    }

    /// A libavif encoder set up for `tuning` (the caller destroys it).
    static func makeEncoder(_ tuning: Tuning) throws -> UnsafeMutablePointer<avifEncoder> {
        guard let encoder = avifEncoderCreate() else {
            throw WebImageError.encodingFailed(reason: "libavif could not create an encoder")
        }
        encoder.pointee.minQuantizer = tuning.quantizer
        encoder.pointee.maxQuantizer = tuning.quantizer
        encoder.pointee.minQuantizerAlpha = tuning.quantizer
        encoder.pointee.maxQuantizerAlpha = tuning.quantizer
        encoder.pointee.speed = tuning.speed
        encoder.pointee.maxThreads = 1
        encoder.pointee.timescale = 1000
        return encoder
    }

    /// `pixels` converted to an 8-bit YUV `avifImage` (the caller destroys it).
    static func yuvImage(
        _ pixels: PixelBuffer, lossless: Bool, subsampled: Bool = true, opaque: Bool, iccProfile: Data? = nil,
        highBitDepth: AVIFHighBitDepth? = nil
    ) throws -> UnsafeMutablePointer<avifImage> {
        let format = !lossless && subsampled ? AVIF_PIXEL_FORMAT_YUV420 : AVIF_PIXEL_FORMAT_YUV444
        let wide = pixels.format == .rgba16
        let depth = wide ? UInt32(highBitDepth?.depth ?? 10) : 8
        guard let image = avifImageCreate(UInt32(pixels.width), UInt32(pixels.height), depth, format) else {
            throw WebImageError.encodingFailed(reason: "libavif could not create an image")
        }
        image.pointee.yuvRange = AVIF_RANGE_FULL
        if wide, let cicp = highBitDepth?.cicp { AVIFHighBitDepth.describe(image, cicp) }
        if lossless { image.pointee.matrixCoefficients = avifMatrixCoefficients(AVIF_MATRIX_COEFFICIENTS_IDENTITY) }
        // A kept colour profile (G-3) goes into the `colr` `prof` box.
        iccProfile?.withUnsafeBytes { icc in
            avifImageSetProfileICC(image, icc.bindMemory(to: UInt8.self).baseAddress, icc.count)
        }
        let result = pixels.bytes.withUnsafeBufferPointer { bytes -> avifResult in
            var rgb = avifRGBImage()
            avifRGBImageSetDefaults(&rgb, image)
            rgb.format = AVIF_RGB_FORMAT_RGBA
            rgb.depth = wide ? 16 : 8
            rgb.ignoreAlpha = opaque ? AVIF_TRUE : AVIF_FALSE
            rgb.pixels = UnsafeMutablePointer(mutating: bytes.baseAddress)
            rgb.rowBytes = UInt32(pixels.bytesPerRow)
            return avifImageRGBToYUV(image, &rgb)
        }
        guard result == AVIF_RESULT_OK else {
            avifImageDestroy(image)
            throw WebImageError.encodingFailed(reason: "AVIF: \(String(cString: avifResultToString(result)))")
        }
        return image
    }

    static func check(_ result: avifResult) throws {
        guard result != AVIF_RESULT_OK else { return }
        throw WebImageError.encodingFailed(reason: "AVIF: \(String(cString: avifResultToString(result)))")
    }
}
