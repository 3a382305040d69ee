import Foundation
import WebImageCore

/// The BMP decoder, in pure Swift (the bitmap reader is shared with ``ICOCoder``): 1/4/8-bit palette,
/// 16/24/32-bit, bit fields and alpha, bottom-up or top-down. A 32-bit bitmap's fourth byte is
/// alpha unless every pixel's is zero, as browsers read it (Pillow ignores it). RLE- and
/// JPEG/PNG-compressed bitmaps are `unsupportedFormat`. BMP is not encoded.
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
        return Image(pixels: Self.sized(pixels, options), scale: AVIFCoder.scale(options), format: .bmp, hasAlpha: hasAlpha)
    }

    /// Reads the size from the header, without decoding.
    public func readMetadata(_ data: Data) throws -> ImageMetadata {
        try ImageHeaderReader.read(data)
    }

    /// `pixels` fitted to the options' thumbnail size.
    static func sized(_ pixels: PixelBuffer, _ options: DecodeOptions) -> PixelBuffer {
        let full = PixelSize(width: pixels.width, height: pixels.height)
        let target = options.targetSize(for: full)
        return target == full ? pixels : pixels.thumbnail(to: target)
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
        return Image(pixels: BMPCoder.sized(pixels, options), scale: AVIFCoder.scale(options), format: .ico, hasAlpha: hasAlpha)
    }

    /// Reads the size of the image ``decode(_:options:)`` would show, from the directory.
    public func readMetadata(_ data: Data) throws -> ImageMetadata {
        let entry = try Self.bestEntry(data)
        return ImageMetadata(format: .ico, pixelSize: PixelSize(width: entry.width, height: entry.height))
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
                guard let bits = DIBDecoding.u16(b, at + 6), let size = DIBDecoding.u32(b, at + 8),
                    let offset = DIBDecoding.u32(b, at + 12)
                else { break }
                let entry = Entry(
                    width: b[at] == 0 ? 256 : Int(b[at]), height: b[at + 1] == 0 ? 256 : Int(b[at + 1]), bitCount: Int(bits),
                    offset: Int(offset), size: Int(size))
                guard entry.size > 0, entry.offset >= 6, entry.offset <= b.count, entry.size <= b.count - entry.offset else { continue }
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
