import CAVIF
import Foundation
import Testing
import WebImageCore

/// AVIF files made at test time with libavif, carrying CICP code points in the `colr` `nclx`
/// box (what our own encoder never writes: it embeds ICC).
enum AVIFTestWriter {
    /// `pixels` (opaque RGBA8) as a lossy 4:4:4 AVIF with the given code points, full range.
    static func avif(_ pixels: PixelBuffer, primaries: UInt16, transfer: UInt16, matrix: UInt16) throws -> Data {
        let image = try #require(avifImageCreate(UInt32(pixels.width), UInt32(pixels.height), 8, AVIF_PIXEL_FORMAT_YUV444))
        defer { avifImageDestroy(image) }
        image.pointee.colorPrimaries = primaries
        image.pointee.transferCharacteristics = transfer
        image.pointee.matrixCoefficients = matrix
        image.pointee.yuvRange = AVIF_RANGE_FULL
        let converted = pixels.bytes.withUnsafeBufferPointer { bytes -> avifResult in
            var rgb = avifRGBImage()
            avifRGBImageSetDefaults(&rgb, image)
            rgb.format = AVIF_RGB_FORMAT_RGBA
            rgb.depth = 8
            rgb.ignoreAlpha = AVIF_TRUE
            rgb.pixels = UnsafeMutablePointer(mutating: bytes.baseAddress)
            rgb.rowBytes = UInt32(pixels.width * 4)
            return avifImageRGBToYUV(image, &rgb)
        }
        try #require(converted == AVIF_RESULT_OK)
        let encoder = try #require(avifEncoderCreate())
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.minQuantizer = 8
        encoder.pointee.maxQuantizer = 8
        encoder.pointee.speed = 8
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        try #require(avifEncoderWrite(encoder, image, &output) == AVIF_RESULT_OK)
        return Data(bytes: output.data, count: output.size)
    }

    /// `width` × `height` RGB pixels of `depth`-bit codes (`samples`, 3 a pixel, 0…2^depth − 1) as a
    /// lossless AVIF of that depth (4:4:4, identity matrix) with the given primaries and transfer.
    static func avif10(width: Int, height: Int, samples: [UInt16], primaries: UInt16, transfer: UInt16, depth: UInt32 = 10) throws -> Data {
        let image = try #require(avifImageCreate(UInt32(width), UInt32(height), depth, AVIF_PIXEL_FORMAT_YUV444))
        defer { avifImageDestroy(image) }
        image.pointee.colorPrimaries = primaries
        image.pointee.transferCharacteristics = transfer
        image.pointee.matrixCoefficients = avifMatrixCoefficients(AVIF_MATRIX_COEFFICIENTS_IDENTITY)
        image.pointee.yuvRange = AVIF_RANGE_FULL
        var rgba = [UInt16](repeating: UInt16((1 << depth) - 1), count: width * height * 4)
        for i in 0..<(width * height) {
            for c in 0..<3 { rgba[i * 4 + c] = samples[i * 3 + c] }
        }
        let converted = rgba.withUnsafeMutableBytes { bytes -> avifResult in
            var rgb = avifRGBImage()
            avifRGBImageSetDefaults(&rgb, image)
            rgb.format = AVIF_RGB_FORMAT_RGBA
            rgb.depth = depth
            rgb.ignoreAlpha = AVIF_TRUE
            rgb.pixels = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            rgb.rowBytes = UInt32(width * 8)
            return avifImageRGBToYUV(image, &rgb)
        }
        try #require(converted == AVIF_RESULT_OK)
        let encoder = try #require(avifEncoderCreate())
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.minQuantizer = Int32(AVIF_QUANTIZER_LOSSLESS)
        encoder.pointee.maxQuantizer = Int32(AVIF_QUANTIZER_LOSSLESS)
        encoder.pointee.speed = 9
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        try #require(avifEncoderWrite(encoder, image, &output) == AVIF_RESULT_OK)
        return Data(bytes: output.data, count: output.size)
    }
}
