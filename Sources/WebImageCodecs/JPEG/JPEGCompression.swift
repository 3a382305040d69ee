import CTurboJPEG
import Foundation
import WebImageCore

/// The JPEG encode behind ``JPEGCoder/encode(_:format:options:)``.
enum JPEGCompression {
    /// Quality from which chroma is kept at full resolution (4:4:4); below it 4:2:0 is used.
    /// At high quality, halving chroma costs visible colour fringes on edges and text for a
    /// small saving; at lower quality the saving matters more.
    static let fullChromaQuality = 0.9

    /// TurboJPEG's 1…100 quality for a 0…1 quality.
    static func libraryQuality(_ quality: Double) -> Int32 {
        Int32(min(100, max(1, (quality * 100).rounded())))
    }

    /// Encodes `pixels` (alpha ignored) at `quality`; with `grey`, as a one-component
    /// greyscale JPEG of the red channel's luma (the pixels of a grey gain map, R = G = B).
    /// `settings` choose progressive scans and 4:4:4 chroma at every quality.
    static func compress(_ pixels: PixelBuffer, quality: Double, grey: Bool = false, settings: JPEGEncodeSettings = JPEGEncodeSettings()) throws -> Data {
        guard pixels.width <= 65_535, pixels.height <= 65_535 else {
            throw WebImageError.encodingFailed(reason: "\(pixels.width)x\(pixels.height) exceeds JPEG's 65535 limit")
        }
        if settings.quantTable != 0, !grey {
            return try JPEGTableCompression.compress(
                pixels, quality: libraryQuality(quality), tables: settings.quantTable,
                fullChroma: settings.noSubsample || quality >= fullChromaQuality, progressive: settings.progressive)
        }
        let handle = try TurboJPEGHandle.compressor()
        let subsampling = grey ? TJSAMP_GRAY : settings.noSubsample || quality >= fullChromaQuality ? TJSAMP_444 : TJSAMP_420
        let flags = TJFLAG_ACCURATEDCT | (settings.progressive ? TJFLAG_PROGRESSIVE : 0)
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize: UInt = 0
        defer { if let output { tjFree(output) } }
        let rc = pixels.bytes.withUnsafeBufferPointer { source in
            tjCompress2(
                handle.raw, source.baseAddress, Int32(pixels.width), 0, Int32(pixels.height),
                Int32(TJPF_RGBA.rawValue), &output, &outputSize, Int32(subsampling.rawValue),
                libraryQuality(quality), Int32(flags))
        }
        guard rc == 0, let output else {
            throw WebImageError.encodingFailed(reason: "TurboJPEG: \(handle.errorMessage)")
        }
        return Data(bytes: output, count: Int(outputSize))
    }

    /// The pixels to encode: first frame, oriented upright, shrunk to `maxPixelSize`.
    static func preparedPixels(of image: Image, maxPixelSize: PixelSize?) -> PixelBuffer {
        EncodeOptions(maxPixelSize: maxPixelSize, keepAnimation: false).preparedImage(image).pixels
    }

    /// Encodes per `options` (see ``JPEGCoder/encode(_:format:options:)``); `image` is already
    /// prepared (upright, first frame, within the size limit) or is prepared here.
    static func encode(_ image: Image, options: EncodeOptions) throws -> Data {
        let pixels = preparedPixels(of: image, maxPixelSize: options.maxPixelSize)
        let quality = options.clampedQuality
        guard let maxBytes = options.maxFileSize else {
            return try compress(pixels, quality: quality, settings: options.jpeg)
        }
        let prepared = Image(pixels: pixels, format: image.format, hasAlpha: image.hasAlpha)
        return try FileSizeSearch.encode(prepared, maxBytes: maxBytes, startQuality: quality) { candidate, q in
            try compress(candidate.pixels, quality: q, settings: options.jpeg)
        }
    }
}
