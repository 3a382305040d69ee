import Foundation

/// A resampling kernel for ``Resampler`` and ``ResizeTransformer``.
///
/// The definitions match Pillow's (`Image.Resampling`), so results can be checked against it:
/// `lanczos3` ↔ `LANCZOS`, `catmullRom` ↔ `BICUBIC` (Keys, a = −0.5), `bilinear` ↔ `BILINEAR`,
/// `box` ↔ `BOX`, `nearest` ↔ `NEAREST`. When shrinking, every kernel but `nearest` is stretched
/// by the scale factor, so it averages over the source area (no aliasing from skipped pixels);
/// `nearest` takes the one source pixel under each output pixel's centre.
public enum ResizeFilter: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Windowed sinc with three lobes: sharpest, slight ringing. The default.
    case lanczos3
    /// Mitchell–Netravali cubic (B = C = 1/3): soft, almost no ringing.
    case mitchell
    /// Catmull-Rom cubic (B = 0, C = 0.5): sharp cubic; Pillow's `BICUBIC`.
    case catmullRom = "catmull-rom"
    /// Triangle (tent) filter: bilinear interpolation when enlarging. Fast.
    case bilinear
    /// Box filter: area average when shrinking, nearest neighbour when enlarging. Fastest.
    case box
    /// Windowed sinc with two lobes: a little softer than ``lanczos3``, less ringing.
    case lanczos2
    /// Nearest neighbour, shrinking too: each output pixel is the source pixel under its centre
    /// (no averaging; hard edges, aliasing on detail). For pixel art.
    case nearest

    public var description: String { rawValue }

    /// Half-width of the kernel in source pixels at scale 1.
    public var support: Double {
        switch self {
        case .lanczos3: 3
        case .mitchell, .catmullRom, .lanczos2: 2
        case .bilinear: 1
        case .box, .nearest: 0.5
        }
    }

    /// Whether the kernel widens with the shrink factor (every filter but ``nearest``).
    var stretchesWhenShrinking: Bool { self != .nearest }

    /// The kernel's value at distance `x` (in kernel units) from the centre.
    public func weight(_ x: Double) -> Double {
        switch self {
        case .box, .nearest:
            return x > -0.5 && x <= 0.5 ? 1 : 0
        case .bilinear:
            let t = abs(x)
            return t < 1 ? 1 - t : 0
        case .catmullRom:
            return Self.cubic(x, b: 0, c: 0.5)
        case .mitchell:
            return Self.cubic(x, b: 1.0 / 3, c: 1.0 / 3)
        case .lanczos3:
            guard x > -3 && x < 3 else { return 0 }
            return Self.sinc(x) * Self.sinc(x / 3)
        case .lanczos2:
            guard x > -2 && x < 2 else { return 0 }
            return Self.sinc(x) * Self.sinc(x / 2)
        }
    }

    /// Lanczos3 at `x` from `sin(πx)` and `sin(πx/3)` computed elsewhere (``Lanczos3Sines``).
    static func lanczos3(_ x: Double, _ sines: (Double, Double)) -> Double {
        guard x > -3 && x < 3 else { return 0 }
        if x == 0 { return 1 }
        return sines.0 / (Double.pi * x) * (sines.1 / (Double.pi * (x / 3)))
    }

    private static func sinc(_ x: Double) -> Double {
        if x == 0 { return 1 }
        let px = Double.pi * x
        return sin(px) / px
    }

    /// The Mitchell–Netravali family of cubics.
    private static func cubic(_ x: Double, b: Double, c: Double) -> Double {
        let t = abs(x)
        if t < 1 {
            return ((12 - 9 * b - 6 * c) * t * t * t + (-18 + 12 * b + 6 * c) * t * t + (6 - 2 * b)) / 6
        }
        if t < 2 {
            return ((-b - 6 * c) * t * t * t + (6 * b + 30 * c) * t * t + (-12 * b - 48 * c) * t + (8 * b + 24 * c)) / 6
        }
        return 0
    }
}

/// `sin(πx)` and `sin(πx/3)` at evenly spaced `x`, by the recurrence
/// `sin(θ + δ) = 2 cos δ · sin θ − sin(θ − δ)`: for ``KernelTable``, whose Lanczos3 taps are
/// evenly spaced. Over the 16 steps it is used for, the error stays near 10⁻¹⁴, far below the
/// `Float` weights' resolution.
struct Lanczos3Sines {
    /// `2 cos(π · step)` and `2 cos(π · step / 3)`.
    struct Steps {
        let full: Double
        let third: Double

        init(step: Double) {
            full = 2 * cos(Double.pi * step)
            third = 2 * cos(Double.pi * (step / 3))
        }
    }

    private let steps: Steps
    private var now: (Double, Double)
    private var next: (Double, Double)

    /// Starts at `x`; `next` is the following position (`x + step`).
    init(at x: Double, next: Double, steps: Steps) {
        self.steps = steps
        now = (sin(Double.pi * x), sin(Double.pi * (x / 3)))
        self.next = (sin(Double.pi * next), sin(Double.pi * (next / 3)))
    }

    /// `(sin(πx), sin(πx/3))` at the current position.
    var current: (Double, Double) { now }

    /// Moves to the next position.
    mutating func advance() {
        let after = (steps.full * next.0 - now.0, steps.third * next.1 - now.1)
        now = next
        next = after
    }
}
