extension OptionArguments {
    /// The largest `contrast` and `saturation` factor accepted.
    static let maximumColorFactor = 100.0

    /// A number from `range`, the option's `what` named in the error.
    func number(_ index: Int, in range: ClosedRange<Double>, _ what: String) throws(ImageServiceError) -> Double {
        let value = try double(index)
        guard range.contains(value) else { throw bad("\(what) must be from \(range.lowerBound) to \(range.upperBound)") }
        return value
    }

    /// `brightness`, -255…255.
    func brightness(_ index: Int) throws(ImageServiceError) -> Int {
        guard let value = Int(values[index]), (-255...255).contains(value) else {
            throw bad("brightness must be a whole number from -255 to 255")
        }
        return value
    }

    /// The optional hex colour at `index`, else `fallback`.
    func color(_ index: Int, default fallback: RGBColor) throws(ImageServiceError) -> RGBColor {
        nonEmpty(index) == nil ? fallback : try hexColor(index)
    }

    /// `adjust:%brightness:%contrast:%saturation`, each optional (the current value kept).
    func adjust(_ filters: inout ColorFilters) throws(ImageServiceError) {
        try requireCount(1...3)
        if nonEmpty(0) != nil { filters.brightness = try brightness(0) }
        if nonEmpty(1) != nil { filters.contrast = try number(1, in: 0...Self.maximumColorFactor, "contrast") }
        if nonEmpty(2) != nil { filters.saturation = try number(2, in: 0...Self.maximumColorFactor, "saturation") }
    }

    /// `monochrome:%intensity:%color` (default `0:b3b3b3`); `nil` for intensity 0.
    func monochrome() throws(ImageServiceError) -> ColorFilters.Tint? {
        try requireCount(1...2)
        let intensity = try number(0, in: 0...1, "intensity")
        let color = try color(1, default: RGBColor(red: 0xb3, green: 0xb3, blue: 0xb3))
        return intensity > 0 ? ColorFilters.Tint(intensity: intensity, color: color) : nil
    }

    /// `duotone:%intensity:%color1:%color2` (default `0:000000:ffffff`); `nil` for intensity 0.
    func duotone() throws(ImageServiceError) -> ColorFilters.Duotone? {
        try requireCount(1...3)
        let intensity = try number(0, in: 0...1, "intensity")
        let dark = try color(1, default: RGBColor(red: 0, green: 0, blue: 0))
        let light = try color(2, default: RGBColor(red: 255, green: 255, blue: 255))
        return intensity > 0 ? ColorFilters.Duotone(intensity: intensity, dark: dark, light: light) : nil
    }

    /// `colorize:%opacity:%color:%keep_alpha` (colour default `000`); `nil` for opacity 0.
    func colorize() throws(ImageServiceError) -> ColorFilters.Colorize? {
        try requireCount(1...3)
        let opacity = try number(0, in: 0...1, "opacity")
        let color = try color(1, default: RGBColor(red: 0, green: 0, blue: 0))
        let keepAlpha = nonEmpty(2) == nil ? false : try bool(2)
        return opacity > 0 ? ColorFilters.Colorize(opacity: opacity, color: color, keepAlpha: keepAlpha) : nil
    }

    /// `gradient:%opacity:%color:%direction:%start:%stop` (colour `000`, direction `down`, 0 to
    /// 1); the direction is `down`, `up`, `right`, `left` or degrees clockwise. `nil` for
    /// opacity 0.
    func gradient() throws(ImageServiceError) -> ColorFilters.Gradient? {
        try requireCount(1...5)
        let opacity = try number(0, in: 0...1, "opacity")
        let color = try color(1, default: RGBColor(red: 0, green: 0, blue: 0))
        var angle = 0.0
        if let direction = nonEmpty(2) {
            switch direction {
            case "down": angle = 0
            case "left": angle = 90
            case "up": angle = 180
            case "right": angle = 270
            default:
                angle = try number(2, in: -3600...3600, "direction (down, up, right, left or degrees)")
                angle = angle.truncatingRemainder(dividingBy: 360)
            }
        }
        let start = nonEmpty(3) == nil ? 0 : try number(3, in: 0...1, "start")
        let stop = nonEmpty(4) == nil ? 1 : try number(4, in: 0...1, "stop")
        guard start <= stop else { throw bad("start must not be after stop") }
        return opacity > 0 ? ColorFilters.Gradient(opacity: opacity, color: color, angle: angle, start: start, stop: stop) : nil
    }
}
