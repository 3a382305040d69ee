import CJXL
import Foundation
import WebImageCore

/// JPEG XL encoding with libjxl 0.7: pixels (still or animated, lossy or lossless, alpha) and
/// the lossless recompression of a JPEG file.
///
/// - Quality 0…1 becomes libjxl's Butteraugli distance with cjxl's and libvips' mapping of a
///   0…100 quality (`0.1 + (100 - q) × 0.09` from 30 up); 1 (or `lossless`) is lossless.
/// - Effort from ``/WebImageCore/EncodeOptions/jxlEffort`` (libjxl's 7 when unset).
/// - An animation keeps every frame's duration (milliseconds) and the loop count.
/// - Single-threaded: no parallel runner is set (the ProcessingPool bounds parallelism).
enum JXLEncoding {
    /// libjxl's distance for `quality` 0…1 (cjxl's `--quality` mapping on 0…100).
    static func distance(forQuality quality: Double) -> Float {
        let q = min(100, max(0, quality * 100))
        let distance = q >= 30 ? 0.1 + (100 - q) * 0.09 : 53.0 / 3000 * q * q - 23.0 / 20 * q + 25
        return Float(distance)
    }

    /// Encodes `image` per `options` (size cap, quality, lossless, file-size target, animation).
    static func encode(_ image: Image, options: EncodeOptions) throws -> Data {
        let source = options.preparedImage(image, keepingHighBitDepth: JXLHighBitDepth.keeps(image, options: options))
        let animated = options.keepAnimation && source.frames.count > 1
        let frames = animated ? source.frames : Array(source.frames.prefix(1))
        let alpha = source.hasAlpha && frames.contains { !$0.pixels.isFullyOpaque() }
        let icc = EmbeddedProfile.iccData(for: source)
        var cicp: CICP?
        if case .cicp(let value)? = source.colorProfile?.kind { cicp = value }
        let encode = { (quality: Double, lossless: Bool) throws -> Data in
            try Self.encode(
                frames, animated: animated, loopCount: source.loopCount, alpha: alpha, icc: icc, cicp: cicp, quality: quality,
                lossless: lossless, effort: options.jxlEffort)
        }
        if let maxBytes = options.maxFileSize, !options.lossless {
            return try FileSizeSearch.encode(source, maxBytes: maxBytes, startQuality: options.clampedQuality) { image, quality in
                try Self.encode(
                    animated ? image.frames : Array(image.frames.prefix(1)), animated: animated, loopCount: image.loopCount,
                    alpha: alpha, icc: icc, cicp: cicp, quality: quality, lossless: false, effort: options.jxlEffort)
            }
        }
        return try encode(options.clampedQuality, options.lossless || options.clampedQuality >= 1)
    }

    /// The frames of one file: 16 bits a sample when they are RGBA16, with `cicp` as libjxl's
    /// colour encoding (else `icc`, else sRGB).
    static func encode(
        _ frames: [ImageFrame], animated: Bool, loopCount: Int, alpha: Bool, icc: Data?, cicp: CICP? = nil, quality: Double,
        lossless: Bool, effort: Int?
    ) throws -> Data {
        guard let first = frames.first else { throw WebImageError.encodingFailed(reason: "JPEG XL: no frames") }
        let wide = first.pixels.format == .rgba16
        let encoder = try JXLEncoderHandle()
        var info = JxlBasicInfo()
        JxlEncoderInitBasicInfo(&info)
        info.xsize = UInt32(first.pixels.width)
        info.ysize = UInt32(first.pixels.height)
        info.bits_per_sample = wide ? 16 : 8
        info.num_color_channels = 3
        info.alpha_bits = alpha ? info.bits_per_sample : 0
        info.num_extra_channels = alpha ? 1 : 0
        info.uses_original_profile = lossless ? JXL_TRUE : JXL_FALSE
        if animated {
            info.have_animation = JXL_TRUE
            info.animation.tps_numerator = 1000
            info.animation.tps_denominator = 1
            info.animation.num_loops = UInt32(clamping: max(0, loopCount))
        }
        try encoder.check(JxlEncoderSetBasicInfo(encoder.pointer, &info), "basic information")
        if wide, let cicp, var color = JXLHighBitDepth.colorEncoding(cicp) {
            try encoder.check(JxlEncoderSetColorEncoding(encoder.pointer, &color), "colour encoding")
        } else if let icc {
            try icc.withUnsafeBytes { bytes in
                try encoder.check(
                    JxlEncoderSetICCProfile(encoder.pointer, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count), "ICC profile")
            }
        } else {
            var color = JxlColorEncoding()
            JxlColorEncodingSetToSRGB(&color, JXL_FALSE)
            try encoder.check(JxlEncoderSetColorEncoding(encoder.pointer, &color), "colour encoding")
        }
        guard let settings = JxlEncoderFrameSettingsCreate(encoder.pointer, nil) else {
            throw WebImageError.encodingFailed(reason: "JPEG XL: libjxl could not create frame settings")
        }
        if let effort {
            try encoder.check(
                JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(min(9, max(1, effort)))), "effort")
        }
        if lossless {
            try encoder.check(JxlEncoderSetFrameLossless(settings, JXL_TRUE), "lossless")
        } else {
            try encoder.check(JxlEncoderSetFrameDistance(settings, distance(forQuality: quality)), "distance")
        }
        var format = JxlPixelFormat(num_channels: alpha ? 4 : 3, data_type: wide ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8, endianness: JXL_NATIVE_ENDIAN, align: 0)
        for frame in frames {
            guard frame.pixels.width == first.pixels.width, frame.pixels.height == first.pixels.height,
                frame.pixels.format == first.pixels.format
            else {
                throw WebImageError.encodingFailed(reason: "JPEG XL: frames of different sizes")
            }
            if animated {
                var header = JxlFrameHeader()
                JxlEncoderInitFrameHeader(&header)
                // Caller-built frames may carry any Double: clamp to 1 ms … ~49 days.
                let milliseconds = frame.duration.isFinite ? (frame.duration * 1000).rounded() : 100
                header.duration = UInt32(min(max(1, milliseconds), Double(UInt32.max)))
                try encoder.check(JxlEncoderSetFrameHeader(settings, &header), "frame header")
            }
            if wide {
                try JXLHighBitDepth.samples(frame.pixels, alpha: alpha).withUnsafeBytes { bytes in
                    try encoder.check(JxlEncoderAddImageFrame(settings, &format, bytes.baseAddress, bytes.count), "frame")
                }
            } else {
                let samples = alpha ? frame.pixels.bytes : rgb(frame.pixels)
                try samples.withUnsafeBytes { bytes in
                    try encoder.check(JxlEncoderAddImageFrame(settings, &format, bytes.baseAddress, bytes.count), "frame")
                }
            }
        }
        JxlEncoderCloseInput(encoder.pointer)
        return try encoder.output()
    }

    /// `jpeg` recompressed losslessly: its DCT coefficients re-coded, with the reconstruction
    /// data that gives back the very same file (`JxlEncoderStoreJPEGMetadata`), at `effort`.
    /// - Throws: `encodingFailed` when libjxl cannot read the JPEG (progressive files with
    ///   unusual scan scripts, arithmetic coding, CMYK…).
    static func recompress(jpeg: Data, effort: Int?) throws -> Data {
        let encoder = try JXLEncoderHandle()
        try encoder.check(JxlEncoderUseContainer(encoder.pointer, JXL_TRUE), "container")
        try encoder.check(JxlEncoderStoreJPEGMetadata(encoder.pointer, JXL_TRUE), "JPEG reconstruction data")
        guard let settings = JxlEncoderFrameSettingsCreate(encoder.pointer, nil) else {
            throw WebImageError.encodingFailed(reason: "JPEG XL: libjxl could not create frame settings")
        }
        if let effort {
            try encoder.check(
                JxlEncoderFrameSettingsSetOption(settings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(min(9, max(1, effort)))), "effort")
        }
        try jpeg.withUnsafeBytes { bytes in
            try encoder.check(
                JxlEncoderAddJPEGFrame(settings, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count), "JPEG frame")
        }
        JxlEncoderCloseInput(encoder.pointer)
        return try encoder.output()
    }

    /// Opaque RGBA as packed RGB.
    private static func rgb(_ pixels: PixelBuffer) -> [UInt8] {
        let count = pixels.width * pixels.height
        return [UInt8](unsafeUninitializedCapacity: count * 3) { out, initialized in
            pixels.bytes.withUnsafeBufferPointer { rgba in
                for i in 0..<count {
                    out[i * 3] = rgba[i * 4]
                    out[i * 3 + 1] = rgba[i * 4 + 1]
                    out[i * 3 + 2] = rgba[i * 4 + 2]
                }
            }
            initialized = count * 3
        }
    }
}

/// A libjxl encoder, destroyed with its owner; the output drained by ``output()``.
final class JXLEncoderHandle {
    let pointer: OpaquePointer

    init() throws {
        guard let encoder = JxlEncoderCreate(nil) else {
            throw WebImageError.encodingFailed(reason: "libjxl could not create an encoder")
        }
        pointer = encoder
    }

    deinit { JxlEncoderDestroy(pointer) }

    func check(_ status: JxlEncoderStatus, _ what: String) throws {
        guard status == JXL_ENC_SUCCESS else {
            throw WebImageError.encodingFailed(
                reason: "JPEG XL: libjxl refused the \(what) (error \(JxlEncoderGetError(pointer).rawValue))")
        }
    }

    /// Everything the encoder writes after its input is closed.
    func output() throws -> Data {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var written = 0
        while true {
            let status = buffer.withUnsafeMutableBufferPointer { whole -> JxlEncoderStatus in
                var next: UnsafeMutablePointer<UInt8>? = whole.baseAddress.map { $0 + written }
                var available = whole.count - written
                let status = JxlEncoderProcessOutput(pointer, &next, &available)
                written = whole.count - available
                return status
            }
            switch status {
            case JXL_ENC_SUCCESS:
                return Data(buffer[0..<written])
            case JXL_ENC_NEED_MORE_OUTPUT:
                buffer.append(contentsOf: repeatElement(0, count: buffer.count))
            default:
                throw WebImageError.encodingFailed(reason: "JPEG XL: libjxl failed (error \(JxlEncoderGetError(pointer).rawValue))")
            }
        }
    }
}
