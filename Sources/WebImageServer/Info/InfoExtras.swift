/// The `/info` options computed from the pixels beside the placeholders, with imgproxy's names
/// and shapes: `perceptual_hash` (`phash`, `ph`), `average` (`avg`) and `palette` (`p`).
struct InfoExtras: Sendable, Hashable, CustomStringConvertible {
    /// `perceptual_hash:1`: a 64-bit DCT hash as 16 hex digits (``PerceptualHash``).
    var perceptualHash = false
    /// `average:%average:%ignore_transparent`: the mean colour; `nil` = off.
    var average: Average?
    /// `palette:%colors`: at most this many colours, 2…256; 0 = off.
    var palette = 0

    /// `average`'s argument beyond the switch.
    struct Average: Sendable, Hashable {
        /// Fully transparent pixels are left out (default).
        var ignoreTransparent = true
    }

    /// The most colours `palette` may ask for.
    static let maximumPalette = 256

    /// The options as a key part (ETag, result store): empty when none is asked for.
    var description: String {
        var parts: [String] = []
        if perceptualHash { parts.append("ph") }
        if let average { parts.append("avg:\(average.ignoreTransparent)") }
        if palette > 0 { parts.append("p:\(palette)") }
        return parts.joined(separator: ",")
    }

    /// Reads `segment` when it is one of these options (`true`), else leaves it (`false`).
    /// - Throws: ``ImageServiceError/badOption(option:reason:)`` for a bad argument.
    mutating func take(_ segment: String) throws(ImageServiceError) -> Bool {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let args = OptionArguments(option: parts[0], values: Array(parts.dropFirst()))
        switch parts[0] {
        case "perceptual_hash", "phash", "ph":
            try args.requireCount(1...1)
            perceptualHash = try args.bool(0)
        case "average", "avg":
            try args.requireCount(1...2)
            let ignoreTransparent = args.nonEmpty(1) == nil ? true : try args.bool(1)
            average = try args.bool(0) ? Average(ignoreTransparent: ignoreTransparent) : nil
        case "palette", "p":
            try args.requireCount(1...1)
            guard let colors = Int(args.values[0]), colors == 0 || (2...Self.maximumPalette).contains(colors) else {
                throw args.bad("colors must be 0 (off) or a whole number from 2 to \(Self.maximumPalette)")
            }
            palette = colors
        default:
            return false
        }
        return true
    }
}
