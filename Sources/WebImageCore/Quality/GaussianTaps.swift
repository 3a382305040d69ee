import Foundation

/// The blur of SSIMULACRA2: libjxl's recursive Gaussian, written as the finite filter it is.
///
/// libjxl blurs with Charalampidis's recursive filter made of three truncated cosines
/// ("Recursive Implementation of the Gaussian Filter Using Truncated Cosine Functions", 2016):
/// `y_k[n] = n2_k · (in[n−N−1] + in[n+N−1]) − d1_k · y_k[n−1] − y_k[n−2]`, summed over k = 1, 3, 5,
/// with zeros outside the row. Its impulse response is finite — `h(x) = Σ β_k cos(ω_k x)` for
/// `|x| < N`, zero from `|x| = N` on, since `cos(ω_k N) = 0` — so applying those taps directly
/// gives the same blur (up to float rounding, and with less of it), and vectorises along rows and
/// columns alike. `β_k` and `ω_k` are computed as libjxl computes them (radius `N`, Table I and
/// equations 37–56 of the paper).
enum GaussianTaps {
    /// The taps for offsets 0, 1, …, N−1 of the blur with standard deviation `sigma` (the filter
    /// is symmetric: offset −k has the tap of k).
    static func taps(sigma: Double) -> [Float] {
        let radius = Double(Float(3.2795 * sigma + 0.2546).rounded())
        let piOver2r = Double.pi / (2 * radius)
        let omega = [piOver2r, 3 * piOver2r, 5 * piOver2r]
        let p = [1 / tan(0.5 * omega[0]), -1 / tan(0.5 * omega[1]), 1 / tan(0.5 * omega[2])]
        let r = [p[0] * p[0] / sin(omega[0]), -p[1] * p[1] / sin(omega[1]), p[2] * p[2] / sin(omega[2])]
        let rho = omega.map { exp(-0.5 * sigma * sigma * $0 * $0) / radius }
        let d13 = p[0] * r[1] - r[0] * p[1]
        let d35 = p[1] * r[2] - r[1] * p[2]
        let d51 = p[2] * r[0] - r[2] * p[0]
        let zeta15 = d35 / d13
        let zeta35 = d51 / d13
        // β solves A β = γ (equations 53–56).
        let a = [[p[0], p[1], p[2]], [r[0], r[1], r[2]], [zeta15, zeta35, 1]]
        let gamma = [1, radius * radius - sigma * sigma, zeta15 * rho[0] + zeta35 * rho[1] + rho[2]]
        let beta = solve3x3(a, gamma)
        return (0..<Int(radius)).map { x in
            Float((0..<3).reduce(0.0) { $0 + beta[$1] * cos(omega[$1] * Double(x)) })
        }
    }

    /// The taps of SSIMULACRA2's blur (sigma 1.5): offsets 0…4.
    static let ssimulacra2: [Float] = taps(sigma: 1.5)

    /// `x` with `a x = b`, by Cramer's rule (`a` is well conditioned here).
    private static func solve3x3(_ a: [[Double]], _ b: [Double]) -> [Double] {
        func det(_ m: [[Double]]) -> Double {
            m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
                + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
        }
        let d = det(a)
        return (0..<3).map { column in
            var m = a
            for row in 0..<3 { m[row][column] = b[row] }
            return det(m) / d
        }
    }
}
