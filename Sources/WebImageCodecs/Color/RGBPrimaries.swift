import WebImageCore

/// Linear-light RGB conversions between sets of primaries, from their chromaticities (the
/// colorimetry of SMPTE RP 177), with a Bradford adaptation when the white points differ.
enum RGBPrimaries {
    /// The matrix from linear RGB in `space` to CIE XYZ (Y of white = 1).
    static func toXYZ(_ space: Chromaticities) -> Matrix3? {
        func xyz(_ x: Double, _ y: Double) -> [Double] { [x / y, 1, (1 - x - y) / y] }
        let r = xyz(space.redX, space.redY), g = xyz(space.greenX, space.greenY), b = xyz(space.blueX, space.blueY)
        let primaries = Matrix3(columns: [r, g, b])
        guard let inverse = primaries.inverse else { return nil }
        let white = xyz(space.whiteX, space.whiteY)
        let s = (0..<3).map { row in (0..<3).map { inverse[row, $0] * white[$0] }.reduce(0, +) }
        return Matrix3(columns: [r.map { $0 * s[0] }, g.map { $0 * s[1] }, b.map { $0 * s[2] }])
    }

    /// The matrix from linear RGB in `source` to linear RGB in `target`, `nil` for degenerate
    /// chromaticities.
    static func conversion(from source: Chromaticities, to target: Chromaticities) -> Matrix3? {
        guard let sourceToXYZ = toXYZ(source), let targetToXYZ = toXYZ(target), let xyzToTarget = targetToXYZ.inverse
        else { return nil }
        let sameWhite = abs(source.whiteX - target.whiteX) < 1e-4 && abs(source.whiteY - target.whiteY) < 1e-4
        if sameWhite { return xyzToTarget * sourceToXYZ }
        guard let adaptation = bradford(from: source, to: target) else { return nil }
        return xyzToTarget * adaptation * sourceToXYZ
    }

    /// The Bradford chromatic adaptation from `source`'s white to `target`'s, in XYZ.
    private static func bradford(from source: Chromaticities, to target: Chromaticities) -> Matrix3? {
        let cone = Matrix3(rows: [0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296])
        guard let coneInverse = cone.inverse else { return nil }
        func response(_ x: Double, _ y: Double) -> [Double] {
            let white = [x / y, 1, (1 - x - y) / y]
            return (0..<3).map { row in (0..<3).map { cone[row, $0] * white[$0] }.reduce(0, +) }
        }
        let from = response(source.whiteX, source.whiteY), to = response(target.whiteX, target.whiteY)
        let scale = Matrix3(rows: [to[0] / from[0], 0, 0, 0, to[1] / from[1], 0, 0, 0, to[2] / from[2]])
        return coneInverse * scale * cone
    }
}
