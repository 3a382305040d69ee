import CTurboJPEG
import WebImageCore

/// One TurboJPEG instance, owned by one decode or encode call and destroyed with it. Handles
/// are never shared: that is what makes ``JPEGCoder`` thread-safe.
final class TurboJPEGHandle {
    let raw: tjhandle

    /// A decompressor instance.
    static func decompressor() throws -> TurboJPEGHandle {
        guard let raw = tjInitDecompress() else {
            throw WebImageError.badImageData(reason: "TurboJPEG could not create a decompressor")
        }
        return TurboJPEGHandle(raw: raw)
    }

    /// A compressor instance.
    static func compressor() throws -> TurboJPEGHandle {
        guard let raw = tjInitCompress() else {
            throw WebImageError.encodingFailed(reason: "TurboJPEG could not create a compressor")
        }
        return TurboJPEGHandle(raw: raw)
    }

    private init(raw: tjhandle) {
        self.raw = raw
    }

    deinit {
        tjDestroy(raw)
    }

    /// The message of the last error or warning on this instance.
    var errorMessage: String {
        guard let message = tjGetErrorStr2(raw) else { return "unknown TurboJPEG error" }
        return String(cString: message)
    }

    /// Whether the last failure on this instance was a warning (the operation completed, but
    /// the data had a problem) rather than a fatal error.
    var lastFailureWasWarning: Bool {
        tjGetErrorCode(raw) == Int32(TJERR_WARNING.rawValue)
    }
}
