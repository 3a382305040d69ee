import CWebP
import Foundation
import WebImageCore

extension WebPCoder: ReducedImageDecoding {
    /// The scale denominators ``decode(_:scaleDenominator:options:)`` accepts besides 1: every
    /// integer from 2 to 8. libwebp's rescaler can produce any size, so every integer shrink is
    /// possible; past 8 the pixels are already at most 1/64 of the full size while libwebp still
    /// reconstructs every full-resolution macroblock, so a larger reduction saves little and
    /// leaves the caller's final resample less to work from.
    public static let reducedDecodeDenominators = Array(2...8)

    /// The reduced pixels are spread evenly across the stored ones, with no padding: reduced
    /// pixel `i` of a side `w` reduced to `w′ = ⌈w / d⌉` covers stored `i·w/w′ ..< (i+1)·w/w′`,
    /// so the stored-to-reduced scale is `w′/w`.
    public static var reducedPixelLayout: ReducedPixelLayout { .spread }

    /// Whether ``decode(_:scaleDenominator:options:)`` accepts `data`: a still image
    /// (``isStill(_:)``).
    public func canDecodeReduced(_ data: Data) -> Bool { isStill(data) }

    /// Whether `data`'s header carries no animation flag: a still image, which
    /// ``decode(_:scaleDenominator:options:)`` accepts.
    /// - Parameter data: the WebP file (its header is enough).
    public func isStill(_ data: Data) -> Bool {
        guard let features = try? WebPSupport.features(of: data) else { return false }
        return features.has_animation == 0
    }

    /// Decodes a still WebP at
    /// ``/WebImageCore/ReducedImageDecoding/reducedSize(of:scaleDenominator:)`` of its stored size, libwebp
    /// scaling while it decodes ("shrink on load", as libvips and imgproxy do for WebP): no
    /// full-size RGBA buffer is allocated for a lossy file (a lossless one still holds its full
    /// ARGB image inside libwebp while decoding). Each result pixel is libwebp's area average
    /// of the stored pixels it covers; the caller resamples the reduced image to the size it needs.
    ///
    /// Orientation and limits follow `options` as in ``decode(_:options:)``: the EXIF orientation
    /// is applied after the reduced decode, the pixel limit is checked on the stored size and the
    /// decoded-bytes budget on the reduced one, before any pixel memory is allocated. Its
    /// thumbnail settings are ignored.
    /// - Parameters:
    ///   - data: the WebP file, a still image (see ``isStill(_:)``).
    ///   - scaleDenominator: 1 or one of ``reducedDecodeDenominators``.
    ///   - options: orientation and limits, as for ``decode(_:options:)``.
    /// - Throws: ``/WebImageCore/WebImageError`` as ``decode(_:options:)``; `unsupportedFormat`
    ///   for a denominator outside 1...8 or an animated file.
    public func decode(_ data: Data, scaleDenominator: Int, options: DecodeOptions) throws -> Image {
        guard scaleDenominator == 1 || Self.reducedDecodeDenominators.contains(scaleDenominator) else {
            throw WebImageError.unsupportedFormat(.webp, reason: "scale 1/\(scaleDenominator) is not one of 1/1 … 1/8")
        }
        let features = try WebPSupport.features(of: data)
        guard features.has_animation == 0 else {
            throw WebImageError.unsupportedFormat(.webp, reason: "an animated WebP has no reduced decode")
        }
        let stored = PixelSize(width: Int(features.width), height: Int(features.height))
        return try WebPStillDecoding.decode(
            data, features: features, options: options,
            storedTarget: Self.reducedSize(of: stored, scaleDenominator: scaleDenominator))
    }
}
