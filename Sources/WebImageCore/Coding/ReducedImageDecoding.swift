import Foundation

/// A decoder that can decode an image at 1/d of its stored size while decoding ("shrink on
/// load", as libvips, imgproxy and Pillow's `draft` do), so no full-size pixels are allocated;
/// the caller resamples the reduced image to the size it needs.
///
/// The built-in JPEG (DCT scaling), WebP (libwebp's rescaler) and PNG (a block average as
/// libspng decodes rows) coders conform. ``CodersManager/reducedDecoder(for:)`` finds the one
/// for a file.
public protocol ReducedImageDecoding: ImageDecoding {
    /// The scale denominators ``decode(_:scaleDenominator:options:)`` accepts besides 1.
    static var reducedDecodeDenominators: [Int] { get }
    /// How the reduced pixels cover the stored ones.
    static var reducedPixelLayout: ReducedPixelLayout { get }
    /// The size a decode at 1/`scaleDenominator` produces for an image stored at `size`.
    static func reducedSize(of size: PixelSize, scaleDenominator: Int) -> PixelSize
    /// Whether ``decode(_:scaleDenominator:options:)`` accepts `data` (a file this coder
    /// decodes), read from its header: an animation or an interlaced file may not be.
    func canDecodeReduced(_ data: Data) -> Bool
    /// Decodes `data` at ``reducedSize(of:scaleDenominator:)`` of its stored size. Orientation
    /// and limits follow `options` as in ``ImageDecoding/decode(_:options:)`` (the decoded-bytes
    /// budget is checked on the reduced size); its thumbnail settings are ignored.
    /// - Throws: ``WebImageError`` as ``ImageDecoding/decode(_:options:)``; `unsupportedFormat`
    ///   for a denominator that is neither 1 nor one of ``reducedDecodeDenominators``, or a file
    ///   ``canDecodeReduced(_:)`` refuses.
    func decode(_ data: Data, scaleDenominator: Int, options: DecodeOptions) throws -> Image
}

extension ReducedImageDecoding {
    /// Each side ⌈side / denominator⌉, the rounding every built-in reduced decoder uses;
    /// denominators under 1 count as 1.
    public static func reducedSize(of size: PixelSize, scaleDenominator: Int) -> PixelSize {
        let d = max(1, scaleDenominator)
        return PixelSize(width: (size.width + d - 1) / d, height: (size.height + d - 1) / d)
    }
}

/// How a reduced decode's pixels cover the stored pixels along one side of `w` stored pixels.
public enum ReducedPixelLayout: Sendable, Hashable {
    /// Reduced pixel `i` covers stored pixels `i·d ..< (i+1)·d`; the last one is partial (a
    /// JPEG's edge padding, a PNG's partial block) at the far end of the side.
    case blocks
    /// The reduced pixels are spread evenly over the side: reduced pixel `i` of `w′` covers
    /// stored `i·w/w′ ..< (i+1)·w/w′`, so stored-to-reduced is `w′/w` (libwebp's rescaler).
    case spread
}

extension CodersManager {
    /// The coder that decodes `data` (the first in priority order that can) when it can also
    /// decode `data` reduced; `nil` otherwise.
    public func reducedDecoder(for data: Data) -> (any ReducedImageDecoding)? {
        guard let coder = coders.first(where: { $0.canDecode(data) }),
            let reduced = coder as? any ReducedImageDecoding, reduced.canDecodeReduced(data)
        else { return nil }
        return reduced
    }
}
