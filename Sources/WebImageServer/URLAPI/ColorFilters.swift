/// The colour options of one pipeline (imgproxy's `adjust`, `brightness`, `contrast`,
/// `saturation`, `monochrome`, `duotone`, `colorize`, `gradient`), applied by the frame steps of
/// the same names after `pixelate` and before `extend`, `padding` and `background`.
public struct ColorFilters: Sendable, Hashable {
    /// `brightness` (`br`): added to every colour channel, -255…255; 0 = unchanged.
    public var brightness = 0
    /// `contrast` (`co`): channels scaled around 128, ≥ 0; 1 = unchanged.
    public var contrast = 1.0
    /// `saturation` (`sa`): the distance from the pixel's luma scaled, ≥ 0; 1 = unchanged.
    public var saturation = 1.0
    /// `monochrome` (`mc`): intensity 0…1 (0 = off) and the palette's base colour.
    public var monochrome: Tint?
    /// `duotone` (`dt`): intensity 0…1 (0 = off), the dark and the light colour.
    public var duotone: Duotone?
    /// `colorize` (`col`): an overlay colour.
    public var colorize: Colorize?
    /// `gradient` (`gr`): a gradient from transparent to a colour.
    public var gradient: Gradient?

    /// A palette base colour and how much of the effect is mixed in.
    public struct Tint: Sendable, Hashable {
        public var intensity: Double
        public var color: RGBColor
    }

    /// Two colours, dark and light, and how much of the effect is mixed in.
    public struct Duotone: Sendable, Hashable {
        public var intensity: Double
        public var dark: RGBColor
        public var light: RGBColor
    }

    /// An overlay of `color` at `opacity`; `keepAlpha` keeps the image's transparency.
    public struct Colorize: Sendable, Hashable {
        public var opacity: Double
        public var color: RGBColor
        public var keepAlpha: Bool
    }

    /// A gradient from transparent at `start` to `color` at `opacity` at `stop`, positions
    /// along `angle` (degrees clockwise, 0 = top to bottom) as fractions of the image.
    public struct Gradient: Sendable, Hashable {
        public var opacity: Double
        public var color: RGBColor
        public var angle: Double
        public var start: Double
        public var stop: Double
    }

    /// No filter.
    public init() {}

    /// Whether no filter is set.
    public var isEmpty: Bool { self == ColorFilters() }

    /// The filters as a canonical-form part; `nil` when none is set.
    var canonicalText: String? {
        guard !isEmpty else { return nil }
        var parts = ["cf:\(brightness):\(contrast):\(saturation)"]
        if let monochrome { parts.append("mc:\(monochrome.intensity):\(monochrome.color)") }
        if let duotone { parts.append("dt:\(duotone.intensity):\(duotone.dark):\(duotone.light)") }
        if let colorize { parts.append("col:\(colorize.opacity):\(colorize.color):\(colorize.keepAlpha)") }
        if let gradient { parts.append("gr:\(gradient.opacity):\(gradient.color):\(gradient.angle):\(gradient.start):\(gradient.stop)") }
        return parts.joined(separator: "/")
    }
}
