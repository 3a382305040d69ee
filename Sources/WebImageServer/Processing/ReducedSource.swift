import WebImage

/// A source decoded reduced, and how to find full-size coordinates in it: on each displayed
/// axis, full coordinate v is reduced coordinate (v + offset) · scale.
struct ReducedSource: Sendable, Hashable {
    /// The reduction the decoder was asked for (2 … 8); what the decode metric counts.
    var denominator: Int
    /// The full displayed size the geometry is planned on.
    var fullSize: PixelSize
    /// Reduced pixels per full pixel on each displayed axis: 1/d for a JPEG or PNG, w′/w for a WebP.
    var scaleX: Double
    var scaleY: Double
    /// Full pixels of encoder padding (or of a PNG's partial block) before the image on each
    /// displayed axis (a JPEG's or PNG's reversed axes; see ``ShrinkOnLoad/reduction(_:)``).
    var offsetX: Int
    var offsetY: Int

    /// `region` (full-size coordinates) in the reduced pixels' coordinates.
    func map(_ region: ResampleRegion) -> ResampleRegion {
        ResampleRegion(
            x: (region.x + Double(offsetX)) * scaleX, y: (region.y + Double(offsetY)) * scaleY,
            width: region.width * scaleX, height: region.height * scaleY)
    }
}
