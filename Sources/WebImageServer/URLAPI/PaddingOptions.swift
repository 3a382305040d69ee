/// The `padding` (`pd`) option's four sides in CSS order, in pixels before the device-pixel
/// ratio: `padding:%top:%right:%bottom:%left`, a missing side taking its CSS value (right from
/// top, bottom from top, left from right).
public struct PaddingOptions: Sendable, Hashable {
    /// Rows added above.
    public var top: Int
    /// Columns added on the right.
    public var right: Int
    /// Rows added below.
    public var bottom: Int
    /// Columns added on the left.
    public var left: Int

    /// Padding of the four sides.
    public init(top: Int, right: Int, bottom: Int, left: Int) {
        self.top = top
        self.right = right
        self.bottom = bottom
        self.left = left
    }

    /// Whether every side is 0.
    public var isEmpty: Bool { top == 0 && right == 0 && bottom == 0 && left == 0 }

    /// Each side multiplied by `scale` and rounded half to even (imgproxy's `ScaleToEven`).
    func scaled(by scale: Double) -> PaddingOptions {
        func side(_ value: Int) -> Int { Int((Double(value) * scale).rounded(.toNearestOrEven)) }
        return PaddingOptions(top: side(top), right: side(right), bottom: side(bottom), left: side(left))
    }
}
