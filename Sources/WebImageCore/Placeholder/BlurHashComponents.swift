/// How many cosine components a BlurHash has across (``x``) and down (``y``): 1…9 each.
/// More components keep more detail and make a longer string (4 + 2·x·y characters).
public struct BlurHashComponents: Sendable, Hashable, CustomStringConvertible {
    /// Components across, 1…9.
    public let x: Int
    /// Components down, 1…9.
    public let y: Int

    /// The valid range of each count.
    public static let range = 1...9

    /// Components `x` × `y`, or `nil` when either is outside 1…9.
    public init?(x: Int, y: Int) {
        guard Self.range.contains(x), Self.range.contains(y) else { return nil }
        self.x = x
        self.y = y
    }

    /// The components for an image of `width` × `height` pixels: 4 along the longer side and
    /// `max(1, ⌊4 · shorter / longer + 0.5⌋)` along the shorter one — 4 × 3 for a 4:3
    /// landscape (the reference encoder's example and the common default), 4 × 4 for a square,
    /// 4 × 2 for 16:9, 3 × 4 for a 3:4 portrait.
    public static func forAspectRatio(width: Int, height: Int) -> BlurHashComponents {
        let long = max(1, max(width, height))
        let short = max(1, min(width, height))
        let shortCount = min(4, max(1, Int((4 * Double(short) / Double(long) + 0.5).rounded(.down))))
        let (x, y) = width >= height ? (4, shortCount) : (shortCount, 4)
        return BlurHashComponents(checkedX: x, y: y)
    }

    /// For counts already known to be in range.
    init(checkedX x: Int, y: Int) {
        self.x = x
        self.y = y
    }

    public var description: String { "\(x)x\(y)" }
}
