import Foundation

/// An image file format, as recognised from the file's first bytes (never from its name).
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case jpeg
    case png
    case gif
    case webp
    case heic
    case heif
    case avif
    case tiff
    case bmp
    case ico
    case svg
    case pdf
    case jxl
    case unknown

    public var description: String { rawValue }

    /// The IANA media type.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .heif: "image/heif"
        case .avif: "image/avif"
        case .tiff: "image/tiff"
        case .bmp: "image/bmp"
        case .ico: "image/x-icon"
        case .svg: "image/svg+xml"
        case .pdf: "application/pdf"
        case .jxl: "image/jxl"
        case .unknown: "application/octet-stream"
        }
    }

    /// The usual file extension, without a dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .unknown: "bin"
        default: rawValue
        }
    }

    /// The format named by a file extension or a short name (`jpg`, `jpeg`, `png`, `webp`, …).
    public init?(name: String) {
        switch name.lowercased() {
        case "jpg", "jpeg", "jpe": self = .jpeg
        case "png", "apng": self = .png
        case "gif": self = .gif
        case "webp": self = .webp
        case "heic": self = .heic
        case "heif": self = .heif
        case "avif": self = .avif
        case "tif", "tiff": self = .tiff
        case "bmp": self = .bmp
        case "ico", "cur": self = .ico
        case "svg": self = .svg
        case "pdf": self = .pdf
        case "jxl": self = .jxl
        default: return nil
        }
    }
}

extension ImageFormat {
    /// Recognises the format from the first bytes of `data` (at most the first kilobyte is read).
    public static func detect(_ data: Data) -> ImageFormat {
        data.withUnsafeBytes { detect(UnsafeRawBufferPointer($0)) }
    }

    /// Recognises the format from the first bytes of a buffer.
    public static func detect(_ b: UnsafeRawBufferPointer) -> ImageFormat {
        func has(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            guard b.count >= offset + prefix.count else { return false }
            for (i, byte) in prefix.enumerated() where b[offset + i] != byte { return false }
            return true
        }
        if has([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if has([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if has(Array("GIF87a".utf8)) || has(Array("GIF89a".utf8)) { return .gif }
        if has(Array("RIFF".utf8)) && has(Array("WEBP".utf8), at: 8) { return .webp }
        if has(Array("ftyp".utf8), at: 4) { return isoBrand(b) }
        if has([0x49, 0x49, 0x2A, 0x00]) || has([0x4D, 0x4D, 0x00, 0x2A]) { return .tiff }
        if has([0x49, 0x49, 0x2B, 0x00]) || has([0x4D, 0x4D, 0x00, 0x2B]) { return .tiff }  // BigTIFF
        if has(Array("%PDF".utf8)) { return .pdf }
        if has([0xFF, 0x0A]) { return .jxl }
        if has([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .jxl }
        if has(Array("BM".utf8)) && b.count >= 26 { return .bmp }
        if (has([0x00, 0x00, 0x01, 0x00]) || has([0x00, 0x00, 0x02, 0x00])) && b.count >= 6 && (b[4] != 0 || b[5] != 0) {
            return .ico
        }
        if looksLikeSVG(b) { return .svg }
        return .unknown
    }

    /// HEIF-family files: the major brand, then the compatible brands of the `ftyp` box.
    private static func isoBrand(_ b: UnsafeRawBufferPointer) -> ImageFormat {
        guard b.count >= 12 else { return .unknown }
        let boxSize = Int(b[0]) << 24 | Int(b[1]) << 16 | Int(b[2]) << 8 | Int(b[3])
        let end = min(b.count, max(12, min(boxSize, 256)))
        func brand(at offset: Int) -> String {
            String(decoding: UnsafeRawBufferPointer(rebasing: b[offset..<offset + 4]), as: UTF8.self)
        }
        var brands = [brand(at: 8)]
        var offset = 16
        while offset + 4 <= end {
            brands.append(brand(at: offset))
            offset += 4
        }
        for candidate in brands {
            switch candidate {
            case "avif", "avis": return .avif
            case "heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs": return .heic
            default: continue
            }
        }
        for candidate in brands where candidate == "mif1" || candidate == "msf1" { return .heif }
        return .unknown
    }

    /// SVG is text: optional BOM and white space, then `<?xml`, `<!--`, `<!DOCTYPE svg` or `<svg`,
    /// with `<svg` within the first kilobyte.
    private static func looksLikeSVG(_ b: UnsafeRawBufferPointer) -> Bool {
        let head = UnsafeRawBufferPointer(rebasing: b[0..<min(b.count, 1024)])
        var i = 0
        if head.count >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF { i = 3 }
        while i < head.count, head[i] == 0x20 || head[i] == 0x09 || head[i] == 0x0A || head[i] == 0x0D { i += 1 }
        guard i < head.count, head[i] == UInt8(ascii: "<") else { return false }
        let text = String(decoding: head, as: UTF8.self).lowercased()
        return text.contains("<svg")
    }
}
