import WebImage

/// A decoder that can decode a source reduced, and the layout of its reduced pixels.
enum ReducedDecoder: Sendable, Hashable {
    /// libjpeg-turbo's DCT scaling (``/WebImageCodecs/JPEGCoder/decode(_:scaleDenominator:options:)``):
    /// 1/2, 1/4, 1/8, each reduced pixel a d×d block, padding at the far end.
    case jpeg
    /// libwebp's rescaler (``/WebImageCodecs/WebPCoder/decode(_:scaleDenominator:options:)``):
    /// 1/2 … 1/8 of a still image, the reduced pixels spread evenly over the stored ones.
    case webp
    /// libspng's row-by-row decode averaged in d×d blocks
    /// (``/WebImageCodecs/PNGCoder/decode(_:scaleDenominator:options:)``): 1/2 … 1/8 of a still,
    /// non-interlaced PNG, each reduced pixel a d×d block, a partial block at the far end.
    case png

    /// The denominators besides 1 the decoder offers.
    var denominators: [Int] {
        switch self {
        case .jpeg: JPEGCoder.reducedDecodeDenominators
        case .webp: WebPCoder.reducedDecodeDenominators
        case .png: PNGCoder.reducedDecodeDenominators
        }
    }

    /// The size of a decode at 1/`scaleDenominator` of a source stored at `size`.
    func reducedSize(of size: PixelSize, scaleDenominator: Int) -> PixelSize {
        switch self {
        case .jpeg: JPEGCoder.reducedSize(of: size, scaleDenominator: scaleDenominator)
        case .webp: WebPCoder.reducedSize(of: size, scaleDenominator: scaleDenominator)
        case .png: PNGCoder.reducedSize(of: size, scaleDenominator: scaleDenominator)
        }
    }
}
