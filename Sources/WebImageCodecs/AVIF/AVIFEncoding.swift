import CAVIF
import Foundation
import WebImageCore

/// AVIF encoding with libavif (libaom): still images and image sequences, lossy (4:2:0) or
/// lossless (4:4:4, identity matrix), with alpha.
///
/// Quality 0…1 maps linearly onto AV1's quantizer 63…0 (colour and alpha alike), as libavif
/// 1.x's own `quality` setting does. libaom runs at
/// speed 8 — a server-side thumbnail trade-off: much faster than its default 6 for files within
/// a few percent of the size — on one thread (the ProcessingPool bounds parallelism). Image
/// sequences loop forever (libavif 0.11 writes no repetition count).
enum AVIFEncoding {
    /// The speed handed to libaom (0 slowest … 10 fastest).
    static let speed: Int32 = 8

    /// Encodes `image` per `options` (size cap, quality, lossless, file-size target, animation).
    static func encode(_ image: Image, options: EncodeOptions) throws -> Data {
        var source = options.preparedImage(image, keepingHighBitDepth: true)
        // An RGBA16 image is written at 10 or 12 bits; a 16-bit animation at 8 (like APNG).
        if source.frames.count > 1 { source = EightBitOutput.prepare(source) }
        let depth = source.pixelFormat == .rgba16 ? (options.highBitDepth == 12 ? 12 : 10) : 8
        if let maxBytes = options.maxFileSize, !options.lossless {
            return try FileSizeSearch.encode(source, maxBytes: maxBytes, startQuality: options.clampedQuality) {
                try encode($0, quality: $1, lossless: false, depth: depth)
            }
        }
        return try encode(source, quality: options.clampedQuality, lossless: options.lossless, depth: depth)
    }

    /// One encode at a fixed quality (0…1), through ``AVIFFrameWriter``.
    static func encode(_ image: Image, quality: Double, lossless: Bool, depth: Int = 8) throws -> Data {
        let opaque = !image.hasAlpha || image.frames.allSatisfy { $0.pixels.isFullyOpaque() }
        let writer = AVIFFrameWriter(
            quality: quality, lossless: lossless, opaque: opaque, iccProfile: EmbeddedProfile.iccData(for: image))
        if depth > 8 { writer.highBitDepth = AVIFHighBitDepth(depth: depth, cicp: image.cicp) }
        return try FrameByFrameEncoder.encode(image, with: writer, keepingHighBitDepth: depth > 8)
    }

    /// A libavif encoder set up for `quality` (0…1) or lossless (the caller destroys it).
    static func makeEncoder(quality: Double, lossless: Bool) throws -> UnsafeMutablePointer<avifEncoder> {
        guard let encoder = avifEncoderCreate() else {
            throw WebImageError.encodingFailed(reason: "libavif could not create an encoder")
        }
        let quantizer = lossless ? Int32(AVIF_QUANTIZER_LOSSLESS) : Int32((1 - min(1, max(0, quality))) * 63 + 0.5)
        encoder.pointee.minQuantizer = quantizer
        encoder.pointee.maxQuantizer = quantizer
        encoder.pointee.minQuantizerAlpha = quantizer
        encoder.pointee.maxQuantizerAlpha = quantizer
        encoder.pointee.speed = speed
        encoder.pointee.maxThreads = 1
        encoder.pointee.timescale = 1000
        return encoder
    }

    /// `pixels` converted to an 8-bit YUV `avifImage` (the caller destroys it).
    static func yuvImage(
        _ pixels: PixelBuffer, lossless: Bool, opaque: Bool, iccProfile: Data? = nil, highBitDepth: AVIFHighBitDepth? = nil
    ) throws -> UnsafeMutablePointer<avifImage> {
        let format = lossless ? AVIF_PIXEL_FORMAT_YUV444 : AVIF_PIXEL_FORMAT_YUV420
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
