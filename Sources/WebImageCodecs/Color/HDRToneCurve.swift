/// The two compressions of the SDR rendition of a PQ/HLG image (H-4), each a knee followed by
/// an extended Reinhard roll-off: values up to the knee pass unchanged, values from the knee to a
/// source maximum are squeezed into the room between the knee and 1, with slope 1 at the knee
/// (no visible crease), strictly increasing, and reaching 1 exactly at the maximum. Beyond the
/// maximum the result stays 1.
///
/// With `u = (x − knee) / (1 − knee)` and `w = (maximum − knee) / (1 − knee)`:
/// `y = knee + (1 − knee) · min(1, u · (1 + u / w²) / (1 + u))`.
struct HDRRollOff: Sendable, Equatable {
    /// Where compression starts.
    let knee: Float
    /// `(maximum − knee) / (1 − knee)`, squared and inverted for the formula.
    let inverseWSquared: Float

    /// A roll-off that keeps `0…knee` and maps `maximum` to 1. A `maximum` at or below 1 gives a
    /// plain clip at 1 above the knee's linear part.
    init(knee: Double, maximum: Double) {
        self.knee = Float(knee)
        let w = max(1, (maximum - knee) / (1 - knee))
        inverseWSquared = Float(1 / (w * w))
    }

    /// The compressed value of `x` (≥ `knee`); at most 1.
    @inline(__always)
    func callAsFunction(_ x: Float) -> Float {
        let u = (x - knee) / (1 - knee)
        let g = min(1, u * (1 + u * inverseWSquared) / (1 + u))
        return knee + (1 - knee) * g
    }

    /// Luminance: tones up to 80 % of reference white (162 cd/m²) are linear; reference white
    /// lands at 0.9 of SDR white in linear light (243/255 in sRGB), and the source's peak at SDR
    /// white.
    static let toneKnee = 0.8
    /// Saturation, as `1 − min(R, G, B) / Y` in linear sRGB: colours up to 0.9 pass; the most
    /// saturated colour of the source gamut lands on the sRGB boundary (a zero channel).
    static let chromaKnee = 0.9
}
