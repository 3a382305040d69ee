/// Mirrors every frame horizontally (left ↔ right), vertically (top ↔ bottom), or both
/// (SPEC T-2). Exact: flipping twice gives the original pixels.
///
/// Key: `FlipTransformer(horizontal=true,vertical=false)`.
public struct FlipTransformer: ImageTransformer {
    /// Mirror left ↔ right.
    public let horizontal: Bool
    /// Mirror top ↔ bottom.
    public let vertical: Bool

    /// Creates a flip; with neither axis the image is returned unchanged.
    public init(horizontal: Bool = false, vertical: Bool = false) {
        self.horizontal = horizontal
        self.vertical = vertical
    }

    public var transformerKey: String { "FlipTransformer(horizontal=\(horizontal),vertical=\(vertical))" }

    public func transform(_ image: Image, key: String) -> Image? {
        if !horizontal && !vertical { return image }
        let orientation: ImageOrientation = horizontal ? (vertical ? .down : .upMirrored) : .downMirrored
        return image.mappingFrames { $0.applying(orientation) }?.carryingGainMap(from: image) { $0.applying(orientation) }
    }
}
