import WebImage

/// An 8-bit RGB color (`background`, `trim` color).
public struct RGBColor: Sendable, Hashable, CustomStringConvertible {
    /// Red, green, blue.
    public var red, green, blue: UInt8
    /// A color from its channels.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }
    /// `rrggbb` in lowercase hex.
    public var description: String {
        [red, green, blue].map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }
}
