import CHEIF
import Foundation
import WebImageCore

/// The primary image of a HEIF file (HEIC, HEIF, AVIF-in-HEIF aside) opened with libheif.
///
/// libheif reads the container and applies the `clap`/`irot`/`imir` transform properties, so
/// ``size`` is the size as shown. Limits are checked on that size and on the coded size (before
/// the crop) before anything is decoded.
/// Not thread-safe: one owner at a time.
final class HEIFPrimaryImage {
    let context: OpaquePointer
    let handle: OpaquePointer
    let input: UnsafeMutableRawBufferPointer

    /// libheif's plugin registry, initialised once for the process (never torn down).
    private static let initialised: Bool = {
        let error = heif_init(nil)
        return error.code == heif_error_Ok
    }()

    /// Initialises libheif's plugin registry if that has not happened yet.
    static func ensureInitialised() { _ = initialised }

    /// Opens `data` and finds its primary image.
    /// - Throws: `badImageData` when libheif cannot read it, `imageTooLarge` over the limits.
    init(_ data: Data, limits: DecodeLimits) throws {
        guard !data.isEmpty else { throw WebImageError.badImageData(reason: "empty HEIF data") }
        _ = Self.initialised
        guard let context = heif_context_alloc() else {
            throw WebImageError.unsupportedFormat(.heif, reason: "libheif could not create a context")
        }
        // One decoding thread: decodes already run in parallel on the ProcessingPool (SPEC C-7),
        // so a grid image must not start a thread per tile on top of that.
        heif_context_set_max_decoding_threads(context, 0)
        // libheif keeps pointers into its input: give it a copy that lives as long as the context.
        let input = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 16)
        data.withUnsafeBytes { input.copyMemory(from: $0) }
        var primary: OpaquePointer?
        var error = heif_context_read_from_memory_without_copy(context, input.baseAddress, input.count, nil)
        if error.code == heif_error_Ok {
            error = heif_context_get_primary_image_handle(context, &primary)
        }
        guard error.code == heif_error_Ok, let primary else {
            // The message lives in the context: read it before freeing the context.
            let reason = "HEIF: \(Self.message(error))"
            heif_context_free(context)
            input.deallocate()
            throw WebImageError.badImageData(reason: reason)
        }
        self.context = context
        self.handle = primary
        self.input = input
        try limits.check(canvas: size)
        // libheif decodes the whole coded image (`ispe`) and crops afterwards: a tiny `clap`
        // over a huge coded size must not pass the limit.
        let coded = PixelSize(width: Int(heif_image_handle_get_ispe_width(handle)), height: Int(heif_image_handle_get_ispe_height(handle)))
        if coded.width > 0, coded.height > 0 { try limits.check(canvas: coded) }
    }

    deinit {
        heif_image_handle_release(handle)
        heif_context_free(context)
        input.deallocate()
    }

    /// The size as shown (after the container's crop, rotation and mirroring).
    var size: PixelSize {
        PixelSize(width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle)))
    }

    /// Whether the image has an alpha plane.
    var hasAlpha: Bool { heif_image_handle_has_alpha_channel(handle) != 0 }

    /// Decodes the image into a new RGBA buffer (8 bits per channel; higher bit depths are
    /// scaled down by libheif), transforms applied. With `hdr` (a PQ/HLG description), a
    /// source of more than 8 bits is decoded at its depth and tone-mapped to SDR sRGB (H-4).
    /// - Throws: `badImageData` when the coded data is corrupt or no decoder is available,
    ///   `imageTooLarge` when the high-bit-depth decode exceeds `limits`' budget.
    func decode(hdr: CICP? = nil, limits: DecodeLimits = .default) throws -> PixelBuffer {
        try Self.decode(handle, size: size, hasAlpha: hasAlpha, hdr: hdr, limits: limits)
    }

    /// Decodes the image of `handle` (the primary image or one of its thumbnails), which shows
    /// at `size`, into a new RGBA buffer; with `hdr`, as ``decode(hdr:limits:)`` does.
    static func decode(
        _ handle: OpaquePointer, size: PixelSize, hasAlpha: Bool, hdr: CICP? = nil, limits: DecodeLimits = .default
    ) throws -> PixelBuffer {
        let bits = Int(heif_image_handle_get_luma_bits_per_pixel(handle))
        if let hdr, bits > 8, bits <= 16, let transform = HDRTransformCache.shared.transform(for: hdr, bits: bits) {
            // libheif's 16-bit copy (8 bytes a pixel) and the result: three RGBA8 canvases.
            try limits.checkBudget(frames: 3, of: size)
            return try decodeToneMapped(handle, size: size, hasAlpha: hasAlpha, transform)
        }
        guard let options = heif_decoding_options_alloc() else {
            throw WebImageError.unsupportedFormat(.heif, reason: "libheif could not allocate decoding options")
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 1
        var decoded: OpaquePointer?
        let error = heif_decode_image(handle, &decoded, heif_colorspace_RGB, heif_chroma_interleaved_RGBA, options)
        guard error.code == heif_error_Ok, let decoded else {
            throw WebImageError.badImageData(reason: "HEIF: \(message(error))")
        }
        defer { heif_image_release(decoded) }
        let width = Int(heif_image_get_width(decoded, heif_channel_interleaved))
        let height = Int(heif_image_get_height(decoded, heif_channel_interleaved))
        var planeStride: Int32 = 0
        guard width > 0, height > 0, let plane = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &planeStride)
        else { throw WebImageError.badImageData(reason: "HEIF: the decoder returned no RGBA plane") }
        let rowBytes = width * PixelBuffer.bytesPerPixel
        guard Int(planeStride) >= rowBytes, PixelSize(width: width, height: height) == size else {
            throw WebImageError.badImageData(reason: "HEIF: decoded \(width)x\(height), expected \(size)")
        }
        let opaque = !hasAlpha
        let sourceStride = Int(planeStride)
        return PixelBuffer.make(width: width, height: height) { out in
            guard let base = out.baseAddress else { return }
            for row in 0..<height {
                let source = plane.advanced(by: row * sourceStride)
                let target = base.advanced(by: row * rowBytes)
                target.update(from: source, count: rowBytes)
                if opaque {
                    for alpha in stride(from: 3, to: rowBytes, by: 4) { target[alpha] = 255 }
                }
            }
        }
    }

    /// `handle` decoded by libheif to interleaved 16-bit RGBA at the source's depth (codes
    /// 0…2^bits − 1, little-endian) and converted row by row by `transform` to RGBA8.
    private static func decodeToneMapped(
        _ handle: OpaquePointer, size: PixelSize, hasAlpha: Bool, _ transform: HDRToSDRTransform
    ) throws -> PixelBuffer {
        try withHighBitDepthRGBA(handle, size: size) { plane, sourceStride, bits in
            guard bits == transform.inputBits else {
                throw WebImageError.badImageData(reason: "HEIF: the decoder returned no \(transform.inputBits)-bit RGBA plane")
            }
            let width = size.width
            let opaque = !hasAlpha
            let maxCode = UInt16((1 << bits) - 1)
            let row = UnsafeMutablePointer<UInt16>.allocate(capacity: width * 4)
            defer { row.deallocate() }
            return PixelBuffer.make(width: width, height: size.height) { out in
                guard let base = out.baseAddress else { return }
                for y in 0..<size.height {
                    let source = UnsafeRawPointer(plane.advanced(by: y * sourceStride))
                    for i in 0..<(width * 4) {
                        row[i] = UInt16(littleEndian: source.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self))
                    }
                    if opaque {
                        for alpha in stride(from: 3, to: width * 4, by: 4) { row[alpha] = maxCode }
                    }
                    transform.apply(row, base.advanced(by: y * width * 4), count: width)
                }
            }
        }
    }

    static func message(_ error: heif_error) -> String {
        guard let text = error.message else { return "error \(error.code.rawValue)" }
        return String(cString: text)
    }
}
