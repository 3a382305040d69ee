import CSPNG
import Foundation
import WebImageCore

/// An independent PNG reader for reference renderings: libspng called directly, RGBA8 out.
/// It does not use the library's PNG coder, so it can check that coder too.
public enum ReferencePNG {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Decodes the PNG at `url` to straight-alpha RGBA8.
    public static func read(_ url: URL) throws -> PixelBuffer {
        let data = try Data(contentsOf: url)
        guard let ctx = spng_ctx_new(0) else { throw Failure(description: "spng_ctx_new") }
        defer { spng_ctx_free(ctx) }
        return try data.withUnsafeBytes { raw -> PixelBuffer in
            guard let base = raw.baseAddress else { throw Failure(description: "empty file") }
            var rc = spng_set_png_buffer(ctx, base, raw.count)
            guard rc == 0 else { throw Failure(description: String(cString: spng_strerror(rc))) }
            var ihdr = spng_ihdr()
            rc = spng_get_ihdr(ctx, &ihdr)
            guard rc == 0 else { throw Failure(description: String(cString: spng_strerror(rc))) }
            var size = 0
            let fmt = Int32(SPNG_FMT_RGBA8.rawValue)
            rc = spng_decoded_image_size(ctx, fmt, &size)
            guard rc == 0 else { throw Failure(description: String(cString: spng_strerror(rc))) }
            var failure: Int32 = 0
            let buffer = PixelBuffer.make(width: Int(ihdr.width), height: Int(ihdr.height)) { out in
                failure = spng_decode_image(ctx, out.baseAddress, size, fmt, Int32(SPNG_DECODE_TRNS.rawValue))
            }
            guard failure == 0 else { throw Failure(description: String(cString: spng_strerror(failure))) }
            return buffer
        }
    }

    /// Reads a corpus reference rendering by its manifest path.
    public static func read(corpusPath: String) throws -> PixelBuffer {
        try read(Corpus.url(corpusPath))
    }
}
