import Foundation
import WebImageCore

/// The BMP decoder, in pure Swift (the bitmap reader is shared with ``ICOCoder``): 1/4/8-bit palette,
/// 16/24/32-bit, bit fields and alpha, bottom-up or top-down. A 32-bit bitmap's fourth byte is
/// alpha unless every pixel's is zero, as browsers read it (Pillow ignores it). RLE4/RLE8 are
/// decoded (pixels they skip are transparent); JPEG/PNG inside a BMP is `unsupportedFormat`.
/// BMP is not encoded.
public struct BMPCoder: ImageCoder {
    /// The BMP coder (it holds no state).
    public init() {}

    /// Whether `data` starts with a `BM` file header.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .bmp
    }

    /// Decodes the bitmap; thumbnails are resampled after decoding.
    /// - Throws: `badImageData`, `imageTooLarge` or `unsupportedFormat` (compressed bitmaps).
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let (pixels, hasAlpha) = try data.withUnsafeBytes { b in
            guard b.count >= 14, b[0] == 0x42, b[1] == 0x4D, let offset = DIBDecoding.u32(b, 10) else {
                throw WebImageError.badImageData(reason: "not a BMP file")
            }
            return try DIBDecoding.decode(
                b, layout: DIBDecoding.Layout(headerOffset: 14, pixelOffset: Int(offset), isIcon: false), limits: options.limits)
        }
        return Image(pixels: FrameOutput(unturned: pixels, options: options).finish(pixels), scale: options.imageScale, format: .bmp, hasAlpha: hasAlpha)
    }

    /// Reads the size from the header, without decoding.
    public func readMetadata(_ data: Data) throws -> ImageMetadata {
        try ImageHeaderReader.read(data)
    }
}

/// The ICO/CUR decoder, in pure Swift: the largest image of the icon (then the deepest), PNG
/// entries through ``PNGCoder`` and bitmap entries through the BMP reader with their AND
/// transparency mask. ICO is not encoded.
public struct ICOCoder: ImageCoder {
    /// The ICO coder (it holds no state).
    public init() {}

    /// Whether `data` starts with an icon or cursor directory.
    public func canDecode(_ data: Data) -> Bool {
        ImageFormat.detect(data) == .ico
    }

    /// Decodes the icon's largest image; thumbnails are resampled after decoding.
    /// - Throws: `badImageData`, `imageTooLarge` or `unsupportedFormat`.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let entry = try Self.bestEntry(data)
        let payload = data.subdata(in: data.startIndex + entry.offset..<data.startIndex + entry.offset + entry.size)
        if payload.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            let png = try PNGCoder().decode(payload, options: options)
            return png.replacing(frames: png.frames, format: .ico)
        }
        let (pixels, hasAlpha) = try payload.withUnsafeBytes { b in
            try DIBDecoding.decode(b, layout: DIBDecoding.Layout(headerOffset: 0, pixelOffset: nil, isIcon: true), limits: options.limits)
        }
        return Image(pixels: FrameOutput(unturned: pixels, options: options).finish(pixels), scale: options.imageScale, format: .ico, hasAlpha: hasAlpha)
    }

    /// Reads the size of the image ``decode(_:options:)`` would show, from that image's own
    /// header (the directory's sizes stop at 256 and may disagree).
    public func readMetadata(_ data: Data) throws -> ImageMetadata {
        let entry = try Self.bestEntry(data)
        let payload = data.subdata(in: data.startIndex + entry.offset..<data.startIndex + entry.offset + entry.size)
        if payload.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            var metadata = try PNGCoder().readMetadata(payload)
            metadata.format = .ico
            return metadata
        }
        let size = try payload.withUnsafeBytes {
            try DIBDecoding.size($0, layout: DIBDecoding.Layout(headerOffset: 0, pixelOffset: nil, isIcon: true))
        }
        try DecodeLimits.default.check(canvas: size)
        return ImageMetadata(format: .ico, pixelSize: size)
    }

    private struct Entry {
        let width: Int
        let height: Int
        let bitCount: Int
        let offset: Int
        let size: Int
    }

    /// The largest entry (then the deepest) whose data lies inside the file.
    private static func bestEntry(_ data: Data) throws -> Entry {
        try data.withUnsafeBytes { b in
            guard b.count >= 6, DIBDecoding.u16(b, 0) == 0, let type = DIBDecoding.u16(b, 2), type == 1 || type == 2,
                let count = DIBDecoding.u16(b, 4), count > 0
            else { throw WebImageError.badImageData(reason: "not an icon directory") }
            var best: Entry?
            for index in 0..<Int(count) {
                let at = 6 + index * 16
                guard let directoryBits = DIBDecoding.u16(b, at + 6), let size = DIBDecoding.u32(b, at + 8),
                    let offset = DIBDecoding.u32(b, at + 12)
                else { break }
                let (start, length) = (Int(offset), Int(size))
                guard length > 0, start >= 6, start <= b.count, length <= b.count - start else { continue }
                // A cursor's bytes 4…7 are its hotspot, and icons often say 0 bits: then the
                // depth comes from the image itself (PNG entries are taken as 32 bits).
                var bits = type == 1 ? Int(directoryBits) : 0
                if bits == 0 {
                    let isPNG = length >= 4 && b[start] == 0x89 && b[start + 1] == 0x50 && b[start + 2] == 0x4E && b[start + 3] == 0x47
                    bits = isPNG ? 32 : Int(DIBDecoding.u16(b, start + 14) ?? 0)
                }
                // The directory's sizes stop at 256 (written as 0): rank by the image's own header.
                var width = b[at] == 0 ? 256 : Int(b[at])
                var height = b[at + 1] == 0 ? 256 : Int(b[at + 1])
                let isPNG = length >= 24 && b[start] == 0x89 && b[start + 1] == 0x50 && b[start + 2] == 0x4E && b[start + 3] == 0x47
                if isPNG {
                    width = Int(b[start + 16]) << 24 | Int(b[start + 17]) << 16 | Int(b[start + 18]) << 8 | Int(b[start + 19])
                    height = Int(b[start + 20]) << 24 | Int(b[start + 21]) << 16 | Int(b[start + 22]) << 8 | Int(b[start + 23])
                } else if let size = try? DIBDecoding.size(
                    UnsafeRawBufferPointer(rebasing: b[start..<start + length]),
                    layout: DIBDecoding.Layout(headerOffset: 0, pixelOffset: nil, isIcon: true))
                {
                    (width, height) = (size.width, size.height)
                }
                // Bounded, so that ranking by area cannot overflow.
                let entry = Entry(
                    width: min(max(width, 0), 1 << 24), height: min(max(height, 0), 1 << 24), bitCount: bits, offset: start,
                    size: length)
                if let current = best,
                    (current.width * current.height, current.bitCount) >= (entry.width * entry.height, entry.bitCount)
                {
                    continue
                }
                best = entry
            }
            guard let best else { throw WebImageError.badImageData(reason: "no icon image inside the file") }
            return best
        }
    }
}
