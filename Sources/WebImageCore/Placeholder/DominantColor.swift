/// One of an image's dominant colours and how much of the image it covers.
public struct DominantColor: Sendable, Hashable, CustomStringConvertible {
    /// The colour (opaque sRGB).
    public var color: RGBA
    /// The fraction of the image's visible pixels closest to this colour, 0…1.
    public var share: Double

    /// Creates a dominant colour.
    public init(color: RGBA, share: Double) {
        self.color = color
        self.share = share
    }

    /// The colour as `#rrggbb` (lowercase hex).
    public var hex: String {
        let digits = Array("0123456789abcdef")
        var text = "#"
        for v in [color.r, color.g, color.b] {
            text.append(digits[Int(v >> 4)])
            text.append(digits[Int(v & 15)])
        }
        return text
    }

    public var description: String { "\(hex) \(Int((share * 100).rounded()))%" }
}
