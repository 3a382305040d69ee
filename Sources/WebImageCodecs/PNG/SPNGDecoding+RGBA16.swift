import CSPNG
import WebImageCore

extension SPNGDecoding {
    /// Decodes a whole 16-bit PNG to ``/WebImageCore/PixelFormat/rgba16`` (host-endian samples,
    /// gray and gray+alpha expanded, `tRNS` applied, Adam7 de-interlaced), pixels as stored. The
    /// budget counts 8 bytes a pixel, checked from IHDR before allocating.
    ///
    /// - Throws: `imageTooLarge` from IHDR before allocating, `badImageData` for corrupt data.
    static func decode16(_ bytes: UnsafeRawBufferPointer, limits: DecodeLimits) throws -> SPNGImage {
        try withContext(bytes, limits: limits) { ctx in
            let header = try header(ctx, limits: limits)
            try limits.checkBudget(frames: 1, of: header.size, format: .rgba16)
            let fmt = Int32(SPNG_FMT_RGBA16.rawValue)
            var size = 0
            var rc = spng_decoded_image_size(ctx, fmt, &size)
            guard rc == 0 else { throw error(rc, "size") }
            guard size == header.width * header.height * PixelFormat.rgba16.bytesPerPixel else {
                throw WebImageError.badImageData(reason: "PNG: unexpected decoded size \(size)")
            }
            let pixels = try PixelBuffer.make16(width: header.width, height: header.height) { out in
                rc = spng_decode_image(ctx, out.baseAddress, size, fmt, Int32(SPNG_DECODE_TRNS.rawValue))
                guard rc == 0 else { throw error(rc, "decode") }
            }
            return try finish(ctx, pixels: pixels, header: header)
        }
    }
}
