import CJPEGLib
import Foundation
import WebImageCore

/// The JPEG encode with flat quantisation tables (``JPEGEncodeSettings/flatQuantTable``), which
/// TurboJPEG's API cannot express: libjpeg's own API, through the C shim that owns its
/// `setjmp` error handling.
enum JPEGFlatCompression {
    /// Encodes the RGBA8 `pixels` (alpha ignored) at libjpeg `quality` 1…100, 4:4:4 with
    /// `fullChroma` else 4:2:0, progressive or baseline.
    static func compress(_ pixels: PixelBuffer, quality: Int32, fullChroma: Bool, progressive: Bool) throws -> Data {
        guard pixels.format == .rgba8 else {
            throw WebImageError.encodingFailed(reason: "flat-table JPEG needs 8-bit pixels")
        }
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize: UInt = 0
        defer { if let output { free(output) } }
        var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
        let rc = pixels.bytes.withUnsafeBufferPointer { source in
            message.withUnsafeMutableBufferPointer { text in
                wi_jpeg_compress_flat(
                    source.baseAddress, UInt32(pixels.width), UInt32(pixels.height), quality,
                    fullChroma ? 1 : 0, progressive ? 1 : 0, &output, &outputSize, text.baseAddress, text.count)
            }
        }
        guard Int(rc) == WI_JPEG_OK, let output else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw WebImageError.encodingFailed(reason: "libjpeg: \(reason)")
        }
        return Data(bytes: output, count: Int(outputSize))
    }
}
