import CJPEGLib
import Foundation
import WebImageCore

/// The JPEG encode with one of mozjpeg's quantisation table sets
/// (``JPEGEncodeSettings/quantTable``, ``JPEGQuantTables``), which TurboJPEG's API cannot
/// express: libjpeg's own API, through the C shim that owns its `setjmp` error handling.
enum JPEGTableCompression {
    /// Encodes the RGBA8 `pixels` (alpha ignored) at libjpeg `quality` 1…100 with table set
    /// `tables` (0…8), 4:4:4 with `fullChroma` else 4:2:0, progressive or baseline.
    static func compress(_ pixels: PixelBuffer, quality: Int32, tables: Int, fullChroma: Bool, progressive: Bool) throws -> Data {
        guard pixels.format == .rgba8 else {
            throw WebImageError.encodingFailed(reason: "a JPEG with chosen quantisation tables needs 8-bit pixels")
        }
        guard JPEGQuantTables.sets.contains(tables) else {
            throw WebImageError.encodingFailed(reason: "quantisation table set \(tables) is not one of 0 to 8")
        }
        let luma = JPEGQuantTables.table(tables, chroma: false)
        let chroma = JPEGQuantTables.table(tables, chroma: true)
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize: UInt = 0
        defer { if let output { free(output) } }
        var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
        let rc = pixels.bytes.withUnsafeBufferPointer { source in
            luma.withUnsafeBufferPointer { luma in
                chroma.withUnsafeBufferPointer { chroma in
                    message.withUnsafeMutableBufferPointer { text in
                        wi_jpeg_compress_tables(
                            source.baseAddress, UInt32(pixels.width), UInt32(pixels.height), quality, luma.baseAddress,
                            chroma.baseAddress, fullChroma ? 1 : 0, progressive ? 1 : 0, &output, &outputSize, text.baseAddress,
                            text.count)
                    }
                }
            }
        }
        guard Int(rc) == WI_JPEG_OK, let output else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw WebImageError.encodingFailed(reason: "libjpeg: \(reason)")
        }
        return Data(bytes: output, count: Int(outputSize))
    }
}
