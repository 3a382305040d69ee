import CJXL
import Foundation
import WebImageCore

/// One pass of libjxl's decoder over a file: the events asked for, in order, over a private
/// copy of the bytes. Pixels are requested as 8-bit RGBA with straight alpha, in stored
/// orientation (the coder turns them, as it does for the other formats). Single-threaded: no
/// parallel runner is set. Not thread-safe: one owner at a time.
final class JXLDecoderSession {
    let decoder: OpaquePointer
    private let input: UnsafeMutableRawBufferPointer
    private(set) var info = JxlBasicInfo()
    private var pixelFormat = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)

    /// A decoder over `data` reporting `events` (`JxlDecoderStatus` bits).
    init(_ data: Data, events: JxlDecoderStatus) throws {
        guard !data.isEmpty else { throw WebImageError.badImageData(reason: "empty JPEG XL data") }
        guard let decoder = JxlDecoderCreate(nil) else {
            throw WebImageError.unsupportedFormat(.jxl, reason: "libjxl could not create a decoder")
        }
        self.decoder = decoder
        input = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 16)
        data.withUnsafeBytes { input.copyMemory(from: $0) }
        let subscribed = JxlDecoderSubscribeEvents(decoder, Int32(bitPattern: events.rawValue | JXL_DEC_BASIC_INFO.rawValue))
        guard subscribed == JXL_DEC_SUCCESS,
            JxlDecoderSetKeepOrientation(decoder, JXL_TRUE) == JXL_DEC_SUCCESS,
            JxlDecoderSetUnpremultiplyAlpha(decoder, JXL_TRUE) == JXL_DEC_SUCCESS,
            JxlDecoderSetInput(decoder, input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count) == JXL_DEC_SUCCESS
        else { throw WebImageError.badImageData(reason: "JPEG XL: the decoder refused its settings") }
        JxlDecoderCloseInput(decoder)
    }

    deinit {
        JxlDecoderDestroy(decoder)
        input.deallocate()
    }

    /// The stored size (before orientation).
    var size: PixelSize { PixelSize(width: Int(info.xsize), height: Int(info.ysize)) }
    /// The orientation the file asks for (EXIF numbering).
    var orientation: ImageOrientation { ImageOrientation(exifValue: Int(info.orientation.rawValue)) }
    /// Whether the image has an alpha channel.
    var hasAlpha: Bool { info.alpha_bits != 0 }
    /// Whether the file is an animation.
    var isAnimation: Bool { info.have_animation != JXL_FALSE }
    /// The loop count of an animation (0 = forever).
    var loopCount: Int { Int(info.animation.num_loops) }

    /// The next event; `JXL_DEC_BASIC_INFO` also reads the basic information into ``info``.
    /// - Throws: `badImageData` for corrupt or truncated data.
    func next() throws -> JxlDecoderStatus {
        let status = JxlDecoderProcessInput(decoder)
        switch status {
        case JXL_DEC_ERROR:
            throw WebImageError.badImageData(reason: "JPEG XL: corrupt data")
        case JXL_DEC_NEED_MORE_INPUT:
            throw WebImageError.badImageData(reason: "JPEG XL: the data ends early")
        case JXL_DEC_BASIC_INFO:
            guard JxlDecoderGetBasicInfo(decoder, &info) == JXL_DEC_SUCCESS else {
                throw WebImageError.badImageData(reason: "JPEG XL: unreadable basic information")
            }
        default:
            break
        }
        return status
    }

    /// The duration of the frame whose header was just reported (`JXL_DEC_FRAME`), in seconds,
    /// with the browsers' short-delay rule.
    func frameDuration() -> Double {
        var header = JxlFrameHeader()
        let ticksPerSecond = Double(info.animation.tps_numerator) / Double(max(1, info.animation.tps_denominator))
        guard JxlDecoderGetFrameHeader(decoder, &header) == JXL_DEC_SUCCESS, ticksPerSecond > 0 else { return FrameDelay.replacement }
        return FrameDelay.clamped(Double(header.duration) / ticksPerSecond)
    }

    /// Answers `JXL_DEC_NEED_IMAGE_OUT_BUFFER` with 16-bit output, converted by `hdr` (made
    /// for 16-bit input) to RGBA8 once the frame is complete (H-4). The intermediate (8 bytes a
    /// pixel) counts against `limits`' budget with the result.
    /// - Throws: as ``decodeFrame()``; `imageTooLarge` over the budget.
    func decodeFrame(toneMapping hdr: HDRToSDRTransform, limits: DecodeLimits) throws -> PixelBuffer {
        let size = self.size
        try limits.checkBudget(frames: 3, of: size)
        var format = JxlPixelFormat(num_channels: 4, data_type: JXL_TYPE_UINT16, endianness: JXL_NATIVE_ENDIAN, align: 0)
        var needed = 0
        let count = size.width * size.height
        guard JxlDecoderImageOutBufferSize(decoder, &format, &needed) == JXL_DEC_SUCCESS, needed == count * 8 else {
            throw WebImageError.badImageData(reason: "JPEG XL: unexpected output buffer size \(needed) for \(size)")
        }
        let wide = UnsafeMutablePointer<UInt16>.allocate(capacity: count * 4)
        defer { wide.deallocate() }
        guard JxlDecoderSetImageOutBuffer(decoder, &format, wide, needed) == JXL_DEC_SUCCESS else {
            throw WebImageError.badImageData(reason: "JPEG XL: the output buffer was refused")
        }
        while try next() != JXL_DEC_FULL_IMAGE {}
        return PixelBuffer.make(width: size.width, height: size.height) { out in
            hdr.apply(wide, out.baseAddress!, count: count)
        }
    }

    /// Answers `JXL_DEC_NEED_IMAGE_OUT_BUFFER`: decodes the current frame into a new buffer of
    /// the stored size.
    /// - Throws: `badImageData` when the decoder wants another size or the data is corrupt.
    func decodeFrame() throws -> PixelBuffer {
        var needed = 0
        let size = self.size
        guard JxlDecoderImageOutBufferSize(decoder, &pixelFormat, &needed) == JXL_DEC_SUCCESS,
            needed == size.width * size.height * PixelBuffer.bytesPerPixel
        else { throw WebImageError.badImageData(reason: "JPEG XL: unexpected output buffer size \(needed) for \(size)") }
        return try PixelBuffer.make(width: size.width, height: size.height) { out in
            guard JxlDecoderSetImageOutBuffer(decoder, &pixelFormat, out.baseAddress, out.count) == JXL_DEC_SUCCESS else {
                throw WebImageError.badImageData(reason: "JPEG XL: the output buffer was refused")
            }
            while try next() != JXL_DEC_FULL_IMAGE {}
        }
    }
}
