import Foundation
import WebImageCore

extension JPEGCoder: ReducedImageDecoding {
    /// The scale denominators ``decode(_:scaleDenominator:options:)`` accepts besides 1:
    /// libjpeg-turbo's reduced inverse DCTs with SIMD paths (1/2, 1/4) and the DC-only 1/8.
    public static let reducedDecodeDenominators = [2, 4, 8]

    /// Pixel `i` of a reduced decode covers stored pixels `i·d ..< (i+1)·d` (the last one
    /// partly the encoder's edge padding), its sides ⌈side / d⌉ as libjpeg computes them.
    public static var reducedPixelLayout: ReducedPixelLayout { .blocks }

    /// Every JPEG this coder decodes can be decoded reduced.
    public func canDecodeReduced(_ data: Data) -> Bool { true }

    /// Decodes `data` at exactly 1/`scaleDenominator` of its stored size by DCT scaling
    /// ("shrink on load", as libvips, imgproxy and Pillow's `draft` do), without resampling
    /// further: the caller resamples the reduced image to the size it needs. Each result pixel
    /// is the average of a `d`×`d` block of the full image, so decoding to at least the final
    /// size keeps the final resample's quality while the decoder skips most of the inverse DCT
    /// and colour conversion work, and no full-size pixels are ever allocated.
    ///
    /// Orientation and limits follow `options` as in ``decode(_:options:)`` (the decoded-bytes
    /// budget is checked on the reduced size); its thumbnail settings are ignored.
    /// - Parameters:
    ///   - data: the JPEG file.
    ///   - scaleDenominator: 1 or one of ``reducedDecodeDenominators``.
    ///   - options: orientation and limits, as for ``decode(_:options:)``.
    /// - Throws: ``/WebImageCore/WebImageError`` as ``decode(_:options:)``; `unsupportedFormat`
    ///   for a denominator that is not 1, 2, 4 or 8.
    public func decode(_ data: Data, scaleDenominator: Int, options: DecodeOptions) throws -> Image {
        guard scaleDenominator == 1 || Self.reducedDecodeDenominators.contains(scaleDenominator) else {
            throw WebImageError.unsupportedFormat(.jpeg, reason: "scale 1/\(scaleDenominator) is not one of 1/1, 1/2, 1/4, 1/8")
        }
        return try JPEGDecompression.decode(data, options: options, acceptDamage: false, scaleDenominator: scaleDenominator)
    }
}
