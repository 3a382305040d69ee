/// Every placeholder of one image, as ``ImagePlaceholder/summary(of:blurHashComponents:colorCount:)``
/// computes them.
public struct PlaceholderSummary: Sendable, Hashable {
    /// The BlurHash string (Wolt's algorithm).
    public var blurHash: String
    /// The components ``blurHash`` was computed with.
    public var blurHashComponents: BlurHashComponents
    /// The ThumbHash, base64 with padding (Evan Wallace's algorithm).
    public var thumbHash: String
    /// The dominant colours, largest share first.
    public var dominantColors: [DominantColor]

    /// Creates a summary from its parts.
    public init(
        blurHash: String, blurHashComponents: BlurHashComponents, thumbHash: String, dominantColors: [DominantColor]
    ) {
        self.blurHash = blurHash
        self.blurHashComponents = blurHashComponents
        self.thumbHash = thumbHash
        self.dominantColors = dominantColors
    }
}
