import CGIF
import WebImageCore

/// The read position giflib's input callback advances through an in-memory GIF.
struct GIFReadCursor {
    var base: UnsafeRawPointer
    var count: Int
    var offset: Int
}

/// giflib's input callback: copies at most `length` bytes from the cursor in `UserData`, never
/// past the end of the buffer, and returns how many it copied (a short count is giflib's EOF).
private func gifRead(
    _ file: UnsafeMutablePointer<GifFileType>?, _ buffer: UnsafeMutablePointer<GifByteType>?, _ length: Int32
) -> Int32 {
    guard let file, let buffer, length > 0, let user = file.pointee.UserData else { return 0 }
    let cursor = user.assumingMemoryBound(to: GIFReadCursor.self)
    let available = cursor.pointee.count - cursor.pointee.offset
    let n = min(Int(length), max(0, available))
    if n > 0 {
        UnsafeMutableRawPointer(buffer).copyMemory(from: cursor.pointee.base + cursor.pointee.offset, byteCount: n)
        cursor.pointee.offset += n
    }
    return Int32(n)
}

/// One giflib decoding session over an owned copy of a GIF file: walks records, skips
/// extensions (their content is read by ``GIFStructure``) and hands out image rows.
///
/// Not thread-safe; its owner (one decode call, or one animated source) uses it serially.
/// The giflib handle is closed in `deinit`.
final class GIFFileReader {
    /// The palette of the current image as 256 RGBA words (little-endian R, G, B, A bytes).
    /// Entries beyond the colour map's size are opaque black; a frame without any colour map
    /// gets black (0) and white (1).
    private(set) var palette = [UInt32](repeating: GIFFileReader.opaqueBlack, count: 256)

    private let storage: UnsafeMutableRawPointer
    private let cursor: UnsafeMutablePointer<GIFReadCursor>
    private let file: UnsafeMutablePointer<GifFileType>
    private var extensionsRead = 0

    static let opaqueBlack = UInt32(0xFF00_0000).littleEndian
    static let opaqueWhite = UInt32(0xFFFF_FFFF).littleEndian

    /// Opens `bytes` (copied) and reads the header and logical screen descriptor.
    /// - Throws: `badImageData` when giflib cannot read them.
    init(bytes: UnsafeRawBufferPointer) throws {
        storage = UnsafeMutableRawPointer.allocate(byteCount: max(1, bytes.count), alignment: 16)
        if let base = bytes.baseAddress, bytes.count > 0 {
            storage.copyMemory(from: base, byteCount: bytes.count)
        }
        cursor = .allocate(capacity: 1)
        cursor.initialize(to: GIFReadCursor(base: UnsafeRawPointer(storage), count: bytes.count, offset: 0))
        var error: Int32 = 0
        guard let opened = DGifOpen(cursor, gifRead, &error) else {
            cursor.deallocate()
            storage.deallocate()
            throw WebImageError.badImageData(reason: "GIF: \(GIFFileReader.message(error))")
        }
        file = opened
    }

    deinit {
        var error: Int32 = 0
        DGifCloseFile(file, &error)
        cursor.deallocate()
        storage.deallocate()
    }

    /// The current image descriptor (valid after ``nextImage()`` returned `true`).
    var image: GifImageDesc { file.pointee.Image }

    /// Advances to the next image descriptor, skipping extensions, and loads its palette.
    /// - Returns: `false` at the trailer, at the end of the data, at an unknown block or after
    ///   ``GIFStructure/maxExtensions`` extensions (browsers stop at junk too).
    /// - Throws: `badImageData` when an image descriptor or its colour map is truncated.
    func nextImage() throws -> Bool {
        while true {
            var type = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(file, &type) == GIF_OK else { return false }
            switch type {
            case IMAGE_DESC_RECORD_TYPE:
                guard DGifGetImageDesc(file) == GIF_OK else { throw failure("image descriptor") }
                loadPalette()
                return true
            case EXTENSION_RECORD_TYPE:
                extensionsRead += 1
                guard extensionsRead <= GIFStructure.maxExtensions else { return false }
                var code: Int32 = 0
                var block: UnsafeMutablePointer<GifByteType>?
                guard DGifGetExtension(file, &code, &block) == GIF_OK else { return false }
                // Each call consumes at least one byte, so this ends with the data.
                while block != nil {
                    guard DGifGetExtensionNext(file, &block) == GIF_OK else { return false }
                }
            default:
                return false
            }
        }
    }

    /// Decodes the next `row.count` pixels of the current image (one row) as palette indices.
    /// - Throws: `badImageData` when the compressed data is corrupt or truncated.
    func readRow(into row: UnsafeMutableBufferPointer<UInt8>) throws {
        guard let base = row.baseAddress, row.count > 0 else { return }
        guard DGifGetLine(file, base, Int32(row.count)) == GIF_OK else { throw failure("image data") }
    }

    /// Skips the compressed data of an image that has no pixels (zero width or height).
    func skipImageData() throws {
        var codeSize: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetCode(file, &codeSize, &block) == GIF_OK else { throw failure("image data") }
        while block != nil {
            guard DGifGetCodeNext(file, &block) == GIF_OK else { throw failure("image data") }
        }
    }

    private func loadPalette() {
        let map = file.pointee.Image.ColorMap ?? file.pointee.SColorMap
        for i in 0..<256 { palette[i] = GIFFileReader.opaqueBlack }
        guard let map, let colors = map.pointee.Colors else {
            palette[1] = GIFFileReader.opaqueWhite
            return
        }
        let count = min(256, max(0, Int(map.pointee.ColorCount)))
        for i in 0..<count {
            let c = colors[i]
            let value = UInt32(c.Red) | UInt32(c.Green) << 8 | UInt32(c.Blue) << 16 | 0xFF00_0000
            palette[i] = value.littleEndian
        }
    }

    private func failure(_ what: String) -> WebImageError {
        .badImageData(reason: "GIF: bad \(what): \(GIFFileReader.message(file.pointee.Error))")
    }

    static func message(_ code: Int32) -> String {
        if let text = GifErrorString(code) { return String(cString: text) }
        return "giflib error \(code)"
    }
}
