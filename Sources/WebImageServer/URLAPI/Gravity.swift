import WebImage

/// Where the kept part of an image lies when it is cropped or extended (imgproxy's `gravity`).
public enum Gravity: Sendable, Hashable {
    /// One of the nine anchors, with offsets: values ≥ 1 are pixels, smaller ones a fraction
    /// of the image's size.
    case anchor(Anchor, xOffset: Double, yOffset: Double)
    /// "Smart" gravity (`sm`): the most detailed region, by local contrast.
    case smart
    /// Focus point (`fp:x:y`): 0…1 fractions of the image giving the result's center.
    case focusPoint(x: Double, y: Double)

    /// The nine anchors and their imgproxy names.
    public enum Anchor: String, Sendable, Hashable, CaseIterable {
        case north = "no", south = "so", east = "ea", west = "we"
        case northEast = "noea", northWest = "nowe", southEast = "soea", southWest = "sowe"
        case center = "ce"
    }

    /// `ce:0:0`, the default.
    public static let center = Gravity.anchor(.center, xOffset: 0, yOffset: 0)
}
