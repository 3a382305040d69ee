import Foundation
import WebImageCore

extension PNGCoder: ReducedImageDecoding {
    /// The scale denominators ``decode(_:scaleDenominator:options:)`` accepts besides 1: every
    /// integer from 2 to 8. The block average works at any integer; past 8 the reduced image is
    /// at most 1/64 of the full one while every stored row is still inflated and unfiltered, so
    /// a larger reduction saves little and leaves the caller's final resample less to work from.
    public static let reducedDecodeDenominators = Array(2...8)

    /// Reduced pixel `i` of a side `w` (⌈w / d⌉ pixels) covers stored pixels
    /// `i·d ..< min((i+1)·d, w)`: the last one averages only the pixels present.
    public static var reducedPixelLayout: ReducedPixelLayout { .blocks }

    /// Whether ``decode(_:scaleDenominator:options:)`` accepts `data`: a PNG whose header is
    /// readable, not interlaced (Adam7 rows arrive pass by pass) and without a valid APNG
    /// animation. Reads chunk headers only.
    /// - Parameter data: the PNG file.
    public func canDecodeReduced(_ data: Data) -> Bool {
        data.withUnsafeBytes { bytes in
            guard let layout = try? PNGLayout.read(bytes) else { return false }
            return layout.animation == nil && !layout.header.interlaced
        }
    }

    /// Decodes a still, non-interlaced PNG at
    /// ``/WebImageCore/ReducedImageDecoding/reducedSize(of:scaleDenominator:)`` of its
    /// stored size ("shrink on load"): libspng decodes the image row by row and every `d`×`d`
    /// block of stored pixels is averaged into one result pixel as its rows arrive, weighted by
    /// alpha so transparent pixels' colours do not bleed. Only one stored row, one row of block
    /// sums and the reduced image are allocated, never the full-size RGBA canvas. The caller
    /// resamples the reduced image to the size it needs.
    ///
    /// Decoding is otherwise ``decode(_:options:)``'s (colour types, `tRNS`, 16-bit reduced to 8,
    /// CRC policy, errors). The `eXIf` orientation is applied to the reduced image unless the
    /// options keep pixels as stored. The pixel limit is checked on the stored size and the
    /// decoded-bytes budget on the reduced one, before any pixel memory is allocated. The
    /// options' thumbnail settings are ignored.
    /// - Parameters:
    ///   - data: the PNG file; see ``canDecodeReduced(_:)``.
    ///   - scaleDenominator: 1 or one of ``reducedDecodeDenominators``.
    ///   - options: orientation and limits, as for ``decode(_:options:)``.
    /// - Throws: ``/WebImageCore/WebImageError`` as ``decode(_:options:)``; `unsupportedFormat`
    ///   for a denominator outside 1...8, an interlaced PNG or an APNG animation.
    public func decode(_ data: Data, scaleDenominator: Int, options: DecodeOptions) throws -> Image {
        guard scaleDenominator == 1 || Self.reducedDecodeDenominators.contains(scaleDenominator) else {
            throw WebImageError.unsupportedFormat(.png, reason: "scale 1/\(scaleDenominator) is not one of 1/1 … 1/8")
        }
        return try data.withUnsafeBytes { bytes in
            let layout = try PNGLayout.read(bytes)
            guard layout.animation == nil else {
                throw WebImageError.unsupportedFormat(.png, reason: "an APNG animation has no reduced decode")
            }
            try options.limits.check(
                canvas: layout.header.size,
                allocating: Self.reducedSize(of: layout.header.size, scaleDenominator: scaleDenominator))
            let decoded = try SPNGDecoding.decode(bytes, limits: options.limits, scaleDenominator: scaleDenominator)
            let applied = options.applyOrientation ? layout.orientation : .up
            let image = Image(
                pixels: decoded.pixels.applying(applied), scale: options.imageScale,
                orientation: options.applyOrientation ? .up : layout.orientation, format: .png,
                hasAlpha: decoded.hasAlpha)
            return ColorConversion.finish(image, profile: colorProfile(bytes, options), options: options)
        }
    }
}
