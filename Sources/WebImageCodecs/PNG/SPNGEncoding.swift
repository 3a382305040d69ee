import CSPNG
import Foundation
import WebImageCore

/// Single-image encoding with libspng (one encoder context per call).
enum SPNGEncoding {
    /// Encodes `pixels` as a PNG of their depth (8 bits a channel, or 16 for
    /// ``/WebImageCore/PixelFormat/rgba16``): RGBA when `alpha`, otherwise RGB (alpha dropped).
    /// With `settings`, Adam7-interlaced, or quantised to an 8-bit palette (``/WebImageCore/PNGEncodeSettings``).
    /// - Throws: ``/WebImageCore/WebImageError/encodingFailed(reason:)``.
    static func encode(_ pixels: PixelBuffer, alpha: Bool, settings: PNGEncodeSettings = PNGEncodeSettings()) throws -> [UInt8] {
        if settings.quantize {
            let palette = GIFQuantizer.quantize(pixels.convertedToRGBA8(), maxColors: settings.quantizationColors)
            return try encodeIndexed(
                palette.indices, width: pixels.width, height: pixels.height, palette: palette, interlaced: settings.interlaced)
        }
        let wide = pixels.format == .rgba16
        let colorType = alpha ? SPNG_COLOR_TYPE_TRUECOLOR_ALPHA.rawValue : SPNG_COLOR_TYPE_TRUECOLOR.rawValue
        return try withEncoder(
            width: pixels.width, height: pixels.height, bitDepth: wide ? 16 : 8, colorType: colorType, interlaced: settings.interlaced
        ) { ctx, fmt, flags in
            if wide && !alpha {
                // Host-endian samples with SPNG_FMT_PNG: libspng writes them big-endian.
                let rgb = rgbSamples16(of: pixels)
                return rgb.withUnsafeBytes { spng_encode_image(ctx, $0.baseAddress, $0.count, fmt, flags) }
            } else if alpha {
                return pixels.bytes.withUnsafeBytes { spng_encode_image(ctx, $0.baseAddress, $0.count, fmt, flags) }
            } else {
                let rgb = rgbBytes(of: pixels)
                return rgb.withUnsafeBytes { spng_encode_image(ctx, $0.baseAddress, $0.count, fmt, flags) }
            }
        }
    }

    /// Encodes `indices` (`width`×`height`, one entry of `palette` a pixel, rows top to bottom)
    /// as an 8-bit indexed PNG with `palette`'s colours and transparent entry (its own indices
    /// are not used), Adam7-interlaced when `interlaced`.
    /// - Throws: ``/WebImageCore/WebImageError/encodingFailed(reason:)``.
    static func encodeIndexed(
        _ indices: [UInt8], width: Int, height: Int, palette: GIFQuantizer.Result, interlaced: Bool
    ) throws -> [UInt8] {
        guard indices.count == width * height else {
            throw WebImageError.encodingFailed(reason: "PNG: \(indices.count) palette indices for \(width)x\(height) pixels")
        }
        return try withEncoder(
            width: width, height: height, bitDepth: 8, colorType: SPNG_COLOR_TYPE_INDEXED.rawValue, interlaced: interlaced
        ) { ctx, fmt, flags in
            try setPalette(palette, on: ctx)
            return indices.withUnsafeBytes { spng_encode_image(ctx, $0.baseAddress, $0.count, fmt, flags) }
        }
    }

    /// One libspng encoder writing to memory with zlib's default strategy and this header;
    /// `encode` writes the image (given the format and flags to pass) and returns libspng's
    /// code. Returns the PNG's bytes.
    private static func withEncoder(
        width: Int, height: Int, bitDepth: UInt8, colorType: UInt32, interlaced: Bool,
        _ encode: (OpaquePointer, Int32, Int32) throws -> Int32
    ) throws -> [UInt8] {
        guard let ctx = spng_ctx_new(Int32(SPNG_CTX_ENCODER.rawValue)) else {
            throw WebImageError.encodingFailed(reason: "PNG: could not create a libspng encoder")
        }
        defer { spng_ctx_free(ctx) }
        var rc = spng_set_option(ctx, SPNG_ENCODE_TO_BUFFER, 1)
        guard rc == 0 else { throw failure(rc) }
        // zlib's default strategy instead of libspng's Z_FILTERED (level 6 and adaptive row
        // filters either way, as Pillow writes): on photo-like images deflate then finds its
        // matches in a quarter less time for files ~4 % larger — the same size Pillow writes
        // (docs/PERFORMANCE.md, "PNG encoding").
        rc = spng_set_option(ctx, SPNG_IMG_COMPRESSION_STRATEGY, zlibDefaultStrategy)
        guard rc == 0 else { throw failure(rc) }
        var ihdr = spng_ihdr()
        ihdr.width = UInt32(truncatingIfNeeded: width)
        ihdr.height = UInt32(truncatingIfNeeded: height)
        ihdr.bit_depth = bitDepth
        ihdr.color_type = UInt8(colorType)
        if interlaced { ihdr.interlace_method = UInt8(SPNG_INTERLACE_ADAM7.rawValue) }
        rc = spng_set_ihdr(ctx, &ihdr)
        guard rc == 0 else { throw failure(rc) }
        rc = try encode(ctx, Int32(SPNG_FMT_PNG.rawValue), Int32(SPNG_ENCODE_FINALIZE.rawValue))
        guard rc == 0 else { throw failure(rc) }
        var length = 0
        var error: Int32 = 0
        guard let buffer = spng_get_png_buffer(ctx, &length, &error), error == 0 else { throw failure(error) }
        defer { free(buffer) }
        return [UInt8](UnsafeRawBufferPointer(start: buffer, count: length))
    }

    /// Writes `palette`'s colours as the PLTE chunk and, when it has a transparent entry, a tRNS
    /// chunk making that entry transparent.
    private static func setPalette(_ palette: GIFQuantizer.Result, on ctx: OpaquePointer) throws {
        var plte = spng_plte()
        plte.n_entries = UInt32(palette.colorCount)
        withUnsafeMutableBytes(of: &plte.entries) { entries in
            for index in 0..<palette.colorCount {
                entries[index * 4] = palette.colors[index * 3]
                entries[index * 4 + 1] = palette.colors[index * 3 + 1]
                entries[index * 4 + 2] = palette.colors[index * 3 + 2]
            }
        }
        var rc = spng_set_plte(ctx, &plte)
        guard rc == 0 else { throw failure(rc) }
        guard let transparent = palette.transparentIndex else { return }
        var trns = spng_trns()
        trns.n_type3_entries = UInt32(transparent + 1)
        withUnsafeMutableBytes(of: &trns.type3_alpha) { alphas in
            for index in 0...transparent { alphas[index] = index == transparent ? 0 : 255 }
        }
        rc = spng_set_trns(ctx, &trns)
        guard rc == 0 else { throw failure(rc) }
    }

    /// The RGB8 bytes of `pixels` (alpha dropped).
    private static func rgbBytes(of pixels: PixelBuffer) -> [UInt8] {
        let count = pixels.width * pixels.height
        return [UInt8](unsafeUninitializedCapacity: count * 3) { out, initialized in
            pixels.bytes.withUnsafeBufferPointer { src in
                for i in 0..<count {
                    out[i * 3] = src[i * 4]
                    out[i * 3 + 1] = src[i * 4 + 1]
                    out[i * 3 + 2] = src[i * 4 + 2]
                }
            }
            initialized = count * 3
        }
    }

    /// The RGB16 samples of RGBA16 `pixels` (alpha dropped).
    private static func rgbSamples16(of pixels: PixelBuffer) -> [UInt16] {
        let count = pixels.width * pixels.height
        return [UInt16](unsafeUninitializedCapacity: count * 3) { out, initialized in
            pixels.withSamples16 { src in
                for i in 0..<count {
                    out[i * 3] = src[i * 4]
                    out[i * 3 + 1] = src[i * 4 + 1]
                    out[i * 3 + 2] = src[i * 4 + 2]
                }
            }
            initialized = count * 3
        }
    }

    /// zlib's `Z_DEFAULT_STRATEGY` (zlib.h; the module map does not import zlib).
    static let zlibDefaultStrategy: Int32 = 0

    private static func failure(_ code: Int32) -> WebImageError {
        .encodingFailed(reason: "PNG: \(String(cString: spng_strerror(code)))")
    }
}
