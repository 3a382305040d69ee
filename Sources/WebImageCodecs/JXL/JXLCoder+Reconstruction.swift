import CJXL
import Foundation
import WebImageCore

extension JXLCoder {
    /// The JPEG file a losslessly recompressed JPEG XL file was made from, byte for byte
    /// (libjxl's JPEG reconstruction), or `nil` when the file carries no reconstruction data.
    /// The output may grow to `maxBytes` (default 256 MiB) before the file is refused.
    /// - Throws: `badImageData` for corrupt or truncated data or output over `maxBytes`.
    public func reconstructJPEG(_ data: Data, maxBytes: Int = 256 << 20) throws -> Data? {
        let session = try JXLDecoderSession(
            data, events: JxlDecoderStatus(JXL_DEC_JPEG_RECONSTRUCTION.rawValue | JXL_DEC_FULL_IMAGE.rawValue))
        // The decoder writes into `buffer` between `offer` and `release`: memory of our own,
        // not an array's storage, so the pointer stays valid while the decoder holds it.
        var buffer = UnsafeMutableRawBufferPointer(start: nil, count: 0)
        var written = 0
        var lent = false
        defer {
            if lent { _ = JxlDecoderReleaseJPEGBuffer(session.decoder) }
            buffer.deallocate()
        }
        /// Hands the decoder the unwritten rest of `buffer`, grown to `size` bytes.
        func offer(growingTo size: Int) throws {
            guard size <= maxBytes else { throw WebImageError.badImageData(reason: "JPEG XL: the JPEG is over \(maxBytes) bytes") }
            let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
            if written > 0, let old = buffer.baseAddress { grown.baseAddress!.copyMemory(from: old, byteCount: written) }
            buffer.deallocate()
            buffer = grown
            let status = JxlDecoderSetJPEGBuffer(
                session.decoder, grown.baseAddress!.assumingMemoryBound(to: UInt8.self) + written, size - written)
            guard status == JXL_DEC_SUCCESS else { throw WebImageError.badImageData(reason: "JPEG XL: the JPEG buffer was refused") }
            lent = true
        }
        /// Takes the buffer back and counts what the decoder wrote into it.
        func release() {
            written = buffer.count - JxlDecoderReleaseJPEGBuffer(session.decoder)
            lent = false
        }
        while true {
            switch try session.next() {
            case JXL_DEC_JPEG_RECONSTRUCTION:
                try offer(growingTo: min(maxBytes, max(64 * 1024, data.count * 2)))
            case JXL_DEC_JPEG_NEED_MORE_OUTPUT:
                release()
                try offer(growingTo: buffer.count * 2)
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER, JXL_DEC_SUCCESS:
                // Pixels wanted: the file carries no reconstruction data.
                return nil
            case JXL_DEC_FULL_IMAGE:
                guard lent else { return nil }
                release()
                return Data(bytes: buffer.baseAddress!, count: written)
            default:
                continue
            }
        }
    }
}
