import CJXL
import WebImageCore

extension JXLDecoderSession {
    /// Whether the file stores more than 8 bits a sample (10, 12, 16 or float).
    var isHighBitDepth: Bool { info.bits_per_sample > 8 }

    /// Answers `JXL_DEC_NEED_IMAGE_OUT_BUFFER` with an ``/WebImageCore/PixelFormat/rgba16``
    /// buffer of the stored size: libjxl writes 16-bit samples over the full range. The budget
    /// counts 8 bytes a pixel, checked before allocating.
    /// - Throws: `badImageData` when the decoder wants another size or the data is corrupt;
    ///   `imageTooLarge` over the budget.
    func decodeFrame16(limits: DecodeLimits) throws -> PixelBuffer {
        let size = self.size
        try limits.checkBudget(frames: 1, of: size, format: .rgba16)
        var format = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT16, endianness: JXL_NATIVE_ENDIAN, align: 0)
        var needed = 0
        guard JxlDecoderImageOutBufferSize(decoder, &format, &needed) == JXL_DEC_SUCCESS,
            needed == size.width * size.height * PixelFormat.rgba16.bytesPerPixel
        else { throw WebImageError.badImageData(reason: "JPEG XL: unexpected output buffer size \(needed) for \(size)") }
        return try PixelBuffer.make16(width: size.width, height: size.height) { out in
            guard JxlDecoderSetImageOutBuffer(decoder, &format, out.baseAddress, needed) == JXL_DEC_SUCCESS else {
                throw WebImageError.badImageData(reason: "JPEG XL: the output buffer was refused")
            }
            while try next() != JXL_DEC_FULL_IMAGE {}
        }
    }
}
