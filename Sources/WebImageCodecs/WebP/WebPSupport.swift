import CWebP
import Foundation
import WebImageCore

/// Small helpers shared by the WebP decoder, animation source, incremental decoder and encoder.
enum WebPSupport {
    /// A readable name for a libwebp decoder status.
    static func describe(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OK: "ok"
        case VP8_STATUS_OUT_OF_MEMORY: "out of memory"
        case VP8_STATUS_INVALID_PARAM: "invalid parameter"
        case VP8_STATUS_BITSTREAM_ERROR: "bitstream error"
        case VP8_STATUS_UNSUPPORTED_FEATURE: "unsupported feature"
        case VP8_STATUS_SUSPENDED: "suspended"
        case VP8_STATUS_USER_ABORT: "user abort"
        case VP8_STATUS_NOT_ENOUGH_DATA: "not enough data (truncated)"
        default: "status \(status.rawValue)"
        }
    }

    /// A readable name for a libwebp encoder error.
    static func describe(_ error: WebPEncodingError) -> String {
        switch error {
        case VP8_ENC_OK: "ok"
        case VP8_ENC_ERROR_OUT_OF_MEMORY: "out of memory"
        case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: "out of memory while flushing bits"
        case VP8_ENC_ERROR_NULL_PARAMETER: "null parameter"
        case VP8_ENC_ERROR_INVALID_CONFIGURATION: "invalid configuration"
        case VP8_ENC_ERROR_BAD_DIMENSION: "bad dimension"
        case VP8_ENC_ERROR_PARTITION0_OVERFLOW: "partition 0 larger than 512 KiB"
        case VP8_ENC_ERROR_PARTITION_OVERFLOW: "partition larger than 16 MiB"
        case VP8_ENC_ERROR_BAD_WRITE: "write error"
        case VP8_ENC_ERROR_FILE_TOO_BIG: "file larger than 4 GiB"
        case VP8_ENC_ERROR_USER_ABORT: "aborted"
        default: "error \(error.rawValue)"
        }
    }

    /// Reads the bitstream features (size, alpha, animation) from the first bytes of `data`.
    /// - Throws: `badImageData` when the header is missing, truncated or invalid.
    static func features(of data: Data) throws -> WebPBitstreamFeatures {
        var features = WebPBitstreamFeatures()
        let status = data.withUnsafeBytes { raw -> VP8StatusCode in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
                return VP8_STATUS_NOT_ENOUGH_DATA
            }
            return WebPGetFeatures(base, raw.count, &features)
        }
        guard status == VP8_STATUS_OK else {
            throw WebImageError.badImageData(reason: "WebP header: \(describe(status))")
        }
        guard features.width > 0, features.height > 0 else {
            throw WebImageError.badImageData(reason: "WebP header: invalid dimensions")
        }
        return features
    }

    /// Frame count and loop count of an animated file, read from its container (no pixels).
    /// `frameCount` is `nil` when the frame table is truncated or unreadable.
    static func frameTable(of data: Data) -> (frameCount: Int?, loopCount: Int?) {
        data.withUnsafeBytes { raw -> (Int?, Int?) in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return (nil, nil) }
            var webPData = WebPData(bytes: base, size: raw.count)
            // The partial demuxer tolerates a truncated file and reports how far it got.
            var state = WEBP_DEMUX_PARSE_ERROR
            guard let demux = WebPDemuxPartial(&webPData, &state) else { return (nil, nil) }
            defer { WebPDemuxDelete(demux) }
            let frames = Int(WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT))
            let loops = Int(WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT))
            return (state == WEBP_DEMUX_DONE ? frames : nil, loops)
        }
    }

    /// A frame duration in seconds from milliseconds, with the browsers' short-delay rule.
    static func duration(milliseconds: Int) -> Double {
        FrameDelay.clamped(Double(max(0, milliseconds)) / 1000)
    }
}

/// A private, stable copy of compressed bytes for libwebp objects that keep pointers into
/// their input for their whole life (the demuxer and the animation decoder).
final class WebPInputBytes {
    /// The bytes; valid until this object is released.
    let pointer: UnsafeMutablePointer<UInt8>
    /// Number of bytes.
    let count: Int

    init(_ data: Data) {
        count = data.count
        pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(1, count))
        data.withUnsafeBytes { raw in
            if let base = raw.baseAddress, count > 0 {
                pointer.update(from: base.assumingMemoryBound(to: UInt8.self), count: count)
            }
        }
    }

    deinit { pointer.deallocate() }

    /// A `WebPData` view of the bytes (valid while `self` lives).
    var webPData: WebPData { WebPData(bytes: pointer, size: count) }
}
