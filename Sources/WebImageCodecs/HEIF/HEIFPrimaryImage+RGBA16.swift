import CHEIF
import WebImageCore

extension HEIFPrimaryImage {
    /// Bits a luma sample of the primary image as coded (8, 10 or 12).
    var storedDepth: Int { Int(heif_image_handle_get_luma_bits_per_pixel(handle)) }

    /// The primary image as ``/WebImageCore/PixelFormat/rgba16`` (SPEC H-1): libheif decodes at
    /// the coded depth (transforms applied) and each code is widened to the full 16-bit range
    /// (`v · 65535 / (2^bits − 1)`, rounded). The budget counts 8 bytes a pixel, checked
    /// before the buffer is allocated.
    func decode16(limits: DecodeLimits) throws -> PixelBuffer {
        try limits.checkBudget(frames: 1, of: size, format: .rgba16)
        guard let options = heif_decoding_options_alloc() else {
            throw WebImageError.unsupportedFormat(.heif, reason: "libheif could not allocate decoding options")
        }
        defer { heif_decoding_options_free(options) }
        options.pointee.convert_hdr_to_8bit = 0
        var decoded: OpaquePointer?
        let error = heif_decode_image(handle, &decoded, heif_colorspace_RGB, heif_chroma_interleaved_RRGGBBAA_LE, options)
        guard error.code == heif_error_Ok, let decoded else {
            throw WebImageError.badImageData(reason: "HEIF: \(Self.message(error))")
        }
        defer { heif_image_release(decoded) }
        let width = Int(heif_image_get_width(decoded, heif_channel_interleaved))
        let height = Int(heif_image_get_height(decoded, heif_channel_interleaved))
        let bits = Int(heif_image_get_bits_per_pixel_range(decoded, heif_channel_interleaved))
        var planeStride: Int32 = 0
        guard width > 0, height > 0, (9...16).contains(bits),
            let plane = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &planeStride)
        else { throw WebImageError.badImageData(reason: "HEIF: the decoder returned no high-bit-depth RGBA plane") }
        guard Int(planeStride) >= width * 8, PixelSize(width: width, height: height) == size else {
            throw WebImageError.badImageData(reason: "HEIF: decoded \(width)x\(height), expected \(size)")
        }
        let opaque = !hasAlpha
        let sourceStride = Int(planeStride)
        return PixelBuffer.make16(width: width, height: height) { out in
            for y in 0..<height {
                let source = UnsafeRawPointer(plane.advanced(by: y * sourceStride))
                let row = y * width * 4
                for i in 0..<(width * 4) {
                    let code = UInt16(littleEndian: source.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self))
                    out[row + i] = opaque && i % 4 == 3 ? 65_535 : PixelFormat.widen(code, bits: bits)
                }
            }
        }
    }
}
