import CTIFF
import Foundation
import WebImageCore

/// A libtiff handle over a private copy of a file's bytes (`TIFFClientOpenExt` with memory
/// callbacks: nothing touches the file system). libtiff's errors and warnings go to this handle
/// — the first error is kept for the thrown error's reason — and never to standard error.
/// libtiff's own allocations are capped by ``maxSingleAllocation``. Not thread-safe: one owner
/// at a time.
final class TIFFMemoryFile {
    /// The largest single allocation libtiff may make for one handle (strip and tile buffers,
    /// directory arrays): 256 MiB, enough for a strip of the largest image the default limits
    /// allow.
    static let maxSingleAllocation = 256 * 1024 * 1024

    private let bytes: UnsafeMutableRawBufferPointer
    private var position = 0
    private(set) var handle: OpaquePointer!
    /// The first error libtiff reported on this handle.
    private(set) var firstError: String?

    /// Opens `data` for reading and reads its first directory.
    /// - Throws: `badImageData` when libtiff cannot read the header or the first directory.
    init(_ data: Data) throws {
        guard !data.isEmpty else { throw WebImageError.badImageData(reason: "empty TIFF data") }
        TIFFMemoryFile.silenceGlobalHandlers
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: data.count, alignment: 16)
        data.withUnsafeBytes { bytes.copyMemory(from: $0) }
        guard let options = TIFFOpenOptionsAlloc() else {
            bytes.deallocate()
            throw WebImageError.badImageData(reason: "libtiff could not allocate its options")
        }
        defer { TIFFOpenOptionsFree(options) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        TIFFOpenOptionsSetMaxSingleMemAlloc(options, tmsize_t(TIFFMemoryFile.maxSingleAllocation))
        TIFFOpenOptionsSetErrorHandlerExtR(options, { _, context, module, format, arguments in
            guard let context else { return 1 }
            Unmanaged<TIFFMemoryFile>.fromOpaque(context).takeUnretainedValue().record(module, format, arguments)
            return 1
        }, context)
        TIFFOpenOptionsSetWarningHandlerExtR(options, { _, _, _, _, _ in 1 }, context)
        // "rm": read-only; libtiff reads strips through the callbacks below ("m": no mapping).
        handle = TIFFClientOpenExt(
            "memory", "rm", context,
            { context, buffer, size in TIFFMemoryFile.file(context).read(into: buffer, size) },
            { _, _, _ in -1 },
            { context, offset, whence in TIFFMemoryFile.file(context).seek(offset, whence) },
            { _ in 0 },
            { context in toff_t(TIFFMemoryFile.file(context).bytes.count) },
            { _, _, _ in 0 },
            { _, _, _ in },
            options)
        guard handle != nil else {
            bytes.deallocate()
            throw WebImageError.badImageData(reason: "TIFF: \(firstError ?? "unreadable header")")
        }
    }

    deinit {
        if handle != nil {
            TIFFClose(handle)
            bytes.deallocate()
        }
    }

    /// libtiff's process-wide handlers print to standard error; the few messages not sent to a
    /// handle's own handler are dropped instead. Set once, before the first handle opens.
    private static let silenceGlobalHandlers: Void = {
        TIFFSetErrorHandler(nil)
        TIFFSetWarningHandler(nil)
    }()

    private static func file(_ context: thandle_t?) -> TIFFMemoryFile {
        Unmanaged<TIFFMemoryFile>.fromOpaque(UnsafeRawPointer(context!)).takeUnretainedValue()
    }

    private func record(_ module: UnsafePointer<CChar>?, _ format: UnsafePointer<CChar>?, _ arguments: CVaListPointer?) {
        guard firstError == nil, let format, let arguments else { return }
        var message = [CChar](repeating: 0, count: 256)
        _ = vsnprintf(&message, message.count, format, arguments)
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        firstError = module.map { "\(String(cString: $0)): \(text)" } ?? text
    }

    private func read(into buffer: UnsafeMutableRawPointer?, _ size: tmsize_t) -> tmsize_t {
        guard let buffer, size > 0, position < bytes.count else { return 0 }
        let count = min(Int(size), bytes.count - position)
        buffer.copyMemory(from: bytes.baseAddress! + position, byteCount: count)
        position += count
        return tmsize_t(count)
    }

    private func seek(_ offset: toff_t, _ whence: Int32) -> toff_t {
        let base: Int
        switch whence {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = position
        case SEEK_END: base = bytes.count
        default: return toff_t.max
        }
        // Offsets are unsigned 64-bit; anything beyond the file is refused (a read there would
        // find nothing anyway).
        guard offset <= toff_t(Int.max / 2) else { return toff_t.max }
        let target = base + Int(offset)
        guard target >= 0, target <= bytes.count else { return toff_t.max }
        position = target
        return toff_t(target)
    }

    // MARK: - Fields

    /// A 32-bit field of the current directory (libtiff's default when absent, if any).
    func uint32(_ tag: Int32) -> UInt32? {
        var value: UInt32 = 0
        let found = withUnsafeMutablePointer(to: &value) { pointer in
            withVaList([pointer]) { TIFFVGetFieldDefaulted(handle, UInt32(tag), $0) }
        }
        return found == 1 ? value : nil
    }

    /// A 16-bit field of the current directory (libtiff's default when absent, if any).
    func uint16(_ tag: Int32) -> UInt16? {
        var value: UInt16 = 0
        let found = withUnsafeMutablePointer(to: &value) { pointer in
            withVaList([pointer]) { TIFFVGetFieldDefaulted(handle, UInt32(tag), $0) }
        }
        return found == 1 ? value : nil
    }

    /// The error to throw after a libtiff call failed.
    func failure(_ what: String) -> WebImageError {
        .badImageData(reason: "TIFF: \(what)\(firstError.map { " (\($0))" } ?? "")")
    }
}
