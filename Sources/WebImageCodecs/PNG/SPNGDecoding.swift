import CSPNG
import WebImageCore

/// The IHDR fields the coder uses.
struct PNGHeader: Sendable, Hashable {
    var width: Int
    var height: Int
    var bitDepth: UInt8
    var colorType: UInt8
    var interlaced: Bool

    var size: PixelSize { PixelSize(width: width, height: height) }

    /// Gray+alpha (4) and RGBA (6) carry an alpha channel.
    var hasAlphaChannel: Bool { colorType == 4 || colorType == 6 }
}

/// A decoded PNG (one image, no animation).
struct SPNGImage {
    var pixels: PixelBuffer
    var header: PNGHeader
    /// Alpha channel or a `tRNS` chunk.
    var hasAlpha: Bool
}

/// Single-image decoding with libspng. Every call makes its own context and frees it before
/// returning; nothing is shared between calls or threads.
enum SPNGDecoding {
    /// Converts a libspng error code to the library's error.
    static func error(_ code: Int32, _ what: String) -> WebImageError {
        let message = String(cString: spng_strerror(code))
        switch code {
        case Int32(SPNG_EUSER_WIDTH.rawValue), Int32(SPNG_EUSER_HEIGHT.rawValue):
            return .imageTooLarge(reason: "PNG \(what): \(message)")
        case Int32(SPNG_ECHUNK_LIMITS.rawValue):
            return .imageTooLarge(reason: "PNG \(what): \(message) (DecodeLimits.maxChunkBytes)")
        default:
            return .badImageData(reason: "PNG \(what): \(message)")
        }
    }

    /// Creates a decoder context over `bytes` with the limits applied (image dimensions, chunk
    /// sizes; lenient CRC policy for ancillary chunks, strict for critical ones), runs `body`,
    /// and frees the context. `bytes` must stay valid during `body`.
    static func withContext<T>(
        _ bytes: UnsafeRawBufferPointer,
        limits: DecodeLimits,
        _ body: (OpaquePointer) throws -> T
    ) throws -> T {
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw WebImageError.badImageData(reason: "PNG: empty data")
        }
        guard let ctx = spng_ctx_new(0) else {
            throw WebImageError.badImageData(reason: "PNG: could not create a libspng context")
        }
        defer { spng_ctx_free(ctx) }
        // Bad CRC: a critical chunk fails the decode; an ancillary chunk is discarded (like libpng).
        _ = spng_set_crc_action(ctx, Int32(SPNG_CRC_ERROR.rawValue), Int32(SPNG_CRC_DISCARD.rawValue))
        // Per-dimension limit: no side can exceed the pixel limit (the area is checked from IHDR).
        let side = UInt32(clamping: min(max(1, limits.maxPixelCount), 0x7FFF_FFFF))
        _ = spng_set_image_limits(ctx, side, side)
        let chunkLimit = max(0, limits.maxChunkBytes)
        _ = spng_set_chunk_limits(ctx, chunkLimit, chunkLimit)
        let rc = spng_set_png_buffer(ctx, base, bytes.count)
        guard rc == 0 else { throw error(rc, "input") }
        return try body(ctx)
    }

    /// Reads and checks IHDR (limits included) through libspng: the pixel limit on the stored
    /// size, the decoded-bytes budget on the canvas a decode at 1/`scaleDenominator` allocates.
    static func header(_ ctx: OpaquePointer, limits: DecodeLimits, scaleDenominator: Int = 1) throws -> PNGHeader {
        var ihdr = spng_ihdr()
        let rc = spng_get_ihdr(ctx, &ihdr)
        guard rc == 0 else { throw error(rc, "header") }
        let header = PNGHeader(
            width: Int(ihdr.width), height: Int(ihdr.height), bitDepth: ihdr.bit_depth,
            colorType: ihdr.color_type, interlaced: ihdr.interlace_method != 0)
        try limits.check(canvas: header.size, allocating: PNGCoder.reducedSize(of: header.size, scaleDenominator: scaleDenominator))
        return header
    }

    /// Whether the image has a `tRNS` chunk (valid only after the header chunks were read).
    static func hasTransparencyChunk(_ ctx: OpaquePointer) -> Bool {
        var trns = spng_trns()
        return spng_get_trns(ctx, &trns) == 0
    }

    /// Decodes a whole PNG to RGBA8 (16-bit reduced to 8, palette and gray expanded, `tRNS`
    /// applied, Adam7 de-interlaced). Gamma is not applied: pixels are as stored, as browsers
    /// without colour management show them.
    ///
    /// With `hdr` (PQ/HLG code points) a 16-bit PNG is decoded at 16 bits and tone-mapped to SDR
    /// sRGB from there (H-4); other PNGs ignore it.
    ///
    /// - Throws: `imageTooLarge` from IHDR before allocating, `badImageData` for corrupt data.
    static func decode(_ bytes: UnsafeRawBufferPointer, limits: DecodeLimits, hdr: CICP? = nil) throws -> SPNGImage {
        try withContext(bytes, limits: limits) { ctx in
            let header = try header(ctx, limits: limits)
            if header.bitDepth == 16, let hdr, let transform = HDRTransformCache.shared.transform(for: hdr, bits: 16) {
                return try decodeToneMapped(ctx, header: header, limits: limits, transform)
            }
            let fmt = Int32(SPNG_FMT_RGBA8.rawValue)
            var size = 0
            var rc = spng_decoded_image_size(ctx, fmt, &size)
            guard rc == 0 else { throw error(rc, "size") }
            guard size == header.width * header.height * PixelBuffer.bytesPerPixel else {
                throw WebImageError.badImageData(reason: "PNG: unexpected decoded size \(size)")
            }
            let pixels = try PixelBuffer.make(width: header.width, height: header.height) { out in
                rc = spng_decode_image(ctx, out.baseAddress, size, fmt, Int32(SPNG_DECODE_TRNS.rawValue))
                guard rc == 0 else { throw error(rc, "decode") }
            }
            return try finish(ctx, pixels: pixels, header: header)
        }
    }

    /// The image as host-endian RGBA16 (a temporary of 8 bytes a pixel, counted against the
    /// budget with the result), converted to RGBA8 by `transform`.
    private static func decodeToneMapped(
        _ ctx: OpaquePointer, header: PNGHeader, limits: DecodeLimits, _ transform: HDRToSDRTransform
    ) throws -> SPNGImage {
        try limits.checkBudget(frames: 3, of: header.size)
        let fmt = Int32(SPNG_FMT_RGBA16.rawValue)
        let count = header.width * header.height
        var size = 0
        var rc = spng_decoded_image_size(ctx, fmt, &size)
        guard rc == 0 else { throw error(rc, "size") }
        guard size == count * 8 else { throw WebImageError.badImageData(reason: "PNG: unexpected decoded size \(size)") }
        let wide = UnsafeMutablePointer<UInt16>.allocate(capacity: count * 4)
        defer { wide.deallocate() }
        rc = spng_decode_image(ctx, wide, size, fmt, Int32(SPNG_DECODE_TRNS.rawValue))
        guard rc == 0 else { throw error(rc, "decode") }
        let pixels = PixelBuffer.make(width: header.width, height: header.height) { out in
            transform.apply(wide, out.baseAddress!, count: count)
        }
        return try finish(ctx, pixels: pixels, header: header)
    }

    /// What follows a complete image: libspng leaves the last IDAT's CRC unread once the image
    /// is complete; reading the rest of the file checks it. Other trouble after the image (no
    /// IEND, trailing junk) is ignored: the pixels are complete.
    static func finish(_ ctx: OpaquePointer, pixels: PixelBuffer, header: PNGHeader) throws -> SPNGImage {
        let tail = spng_decode_chunks(ctx)
        guard tail != Int32(SPNG_ECHUNK_CRC.rawValue) else { throw error(tail, "image data") }
        let hasAlpha = header.hasAlphaChannel || hasTransparencyChunk(ctx)
        return SPNGImage(pixels: pixels, header: header, hasAlpha: hasAlpha)
    }
}
