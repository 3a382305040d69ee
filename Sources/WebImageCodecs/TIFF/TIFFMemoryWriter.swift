import CTIFF
import Foundation
import WebImageCore

/// A libtiff handle that writes into memory (`TIFFClientOpenExt` with callbacks over a growing
/// byte array: nothing touches the file system). libtiff's first error is kept for the thrown
/// error's reason; nothing is printed. Not thread-safe: one owner at a time.
final class TIFFMemoryWriter {
    private var bytes: [UInt8] = []
    private var position = 0
    private(set) var handle: OpaquePointer!
    /// The first error libtiff reported on this handle.
    private(set) var firstError: String?

    /// Opens an empty file for writing (little-endian, classic TIFF).
    /// - Throws: `encodingFailed` when libtiff cannot open it.
    init() throws {
        guard let options = TIFFOpenOptionsAlloc() else {
            throw WebImageError.encodingFailed(reason: "libtiff could not allocate its options")
        }
        defer { TIFFOpenOptionsFree(options) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        TIFFOpenOptionsSetErrorHandlerExtR(options, { _, context, module, format, arguments in
            guard let context else { return 1 }
            Unmanaged<TIFFMemoryWriter>.fromOpaque(context).takeUnretainedValue().record(module, format, arguments)
            return 1
        }, context)
        TIFFOpenOptionsSetWarningHandlerExtR(options, { _, _, _, _, _ in 1 }, context)
        // "wl": write, little-endian; "m": no mapping.
        handle = TIFFClientOpenExt(
            "memory", "wlm", context,
            { context, buffer, size in TIFFMemoryWriter.file(context).read(into: buffer, size) },
            { context, buffer, size in TIFFMemoryWriter.file(context).write(from: buffer, size) },
            { context, offset, whence in TIFFMemoryWriter.file(context).seek(offset, whence) },
            { _ in 0 },
            { context in toff_t(TIFFMemoryWriter.file(context).bytes.count) },
            { _, _, _ in 0 },
            { _, _, _ in },
            options)
        guard handle != nil else {
            throw WebImageError.encodingFailed(reason: "TIFF: \(firstError ?? "libtiff could not open a file for writing")")
        }
    }

    deinit {
        if handle != nil { TIFFClose(handle) }
    }

    /// Writes the directory, closes the handle and returns the file.
    func finish() throws -> Data {
        guard TIFFWriteDirectory(handle) == 1 else { throw failure("writing the directory") }
        TIFFClose(handle)
        handle = nil
        if let firstError { throw WebImageError.encodingFailed(reason: "TIFF: \(firstError)") }
        return Data(bytes)
    }

    /// Sets a field of the current directory; `values` as libtiff's `TIFFSetField` takes them
    /// (16-bit values promoted to `Int32`, 32-bit ones as `UInt32`, arrays as pointers).
    func set(_ tag: Int32, _ values: [any CVarArg], _ what: String) throws {
        let done = withVaList(values) { TIFFVSetField(handle, UInt32(tag), $0) }
        guard done == 1 else { throw failure("setting \(what)") }
    }

    func failure(_ what: String) -> WebImageError {
        WebImageError.encodingFailed(reason: "TIFF: \(what): \(firstError ?? "libtiff refused it")")
    }

    private static func file(_ context: thandle_t?) -> TIFFMemoryWriter {
        Unmanaged<TIFFMemoryWriter>.fromOpaque(UnsafeRawPointer(context!)).takeUnretainedValue()
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
        bytes.withUnsafeBytes { buffer.copyMemory(from: $0.baseAddress! + position, byteCount: count) }
        position += count
        return tmsize_t(count)
    }

    private func write(from buffer: UnsafeMutableRawPointer?, _ size: tmsize_t) -> tmsize_t {
        guard let buffer, size > 0 else { return 0 }
        let count = Int(size)
        let end = position + count
        if end > bytes.count { bytes.append(contentsOf: repeatElement(0, count: end - bytes.count)) }
        bytes.withUnsafeMutableBytes { ($0.baseAddress! + position).copyMemory(from: buffer, byteCount: count) }
        position = end
        return size
    }

    private func seek(_ offset: toff_t, _ whence: Int32) -> toff_t {
        let base: Int
        switch whence {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = position
        case SEEK_END: base = bytes.count
        default: return toff_t.max
        }
        // A seek past the end is allowed (libtiff writes there next); the gap is zero-filled then.
        guard offset <= toff_t(Int32.max) else { return toff_t.max }
        let target = base + Int(offset)
        guard target >= 0 else { return toff_t.max }
        position = target
        return toff_t(target)
    }
}
