import Foundation

/// How the encoder quality of a result is chosen (SPEC V-15): imgproxy's `autoquality`/`aq`
/// option and `autoquality-*` settings, `aq:%method:%target:%min:%max:%allowed_error`.
///
/// - `none`: the request's `quality` (or the format's default), one encode.
/// - `size`: the highest quality in `min…max` whose file is at most `target` bytes (within
///   `allowedError`, a fraction of the target, below it); `min` when none fits.
/// - `ssimulacra2` (this service's own, also `s2`): the lowest quality in `min…max` whose
///   result scores at least `target` SSIMULACRA2 points against the processed image (within
///   `allowedError` points above it); `max` when none does.
/// - `dssim`: as `ssimulacra2`, with imgproxy's DSSIM target and allowed error converted to
///   SSIMULACRA2 points (``ssimulacra2Points(dssim:)``).
///
/// The search (`QualitySearch`) starts from a quality predicted from the image's complexity
/// and needs about two encodes a request; see the DocC article "Perceptual quality".
public struct AutoQuality: Sendable, Hashable {
    /// The methods.
    public enum Method: String, Sendable, Hashable, CaseIterable {
        case none, size, dssim, ssimulacra2
    }

    /// The method.
    public var method: Method
    /// Bytes for `size`, SSIMULACRA2 points for `ssimulacra2`, DSSIM for `dssim`.
    public var target: Double
    /// The lowest quality tried, 1…100.
    public var minQuality: Int
    /// The highest quality tried, `minQuality`…100.
    public var maxQuality: Int
    /// How far over the target (points, DSSIM, or a fraction of the bytes) a result may be
    /// and still end the search.
    public var allowedError: Double

    /// A search set by hand.
    public init(method: Method, target: Double, minQuality: Int, maxQuality: Int, allowedError: Double) {
        self.method = method
        self.target = target
        self.minQuality = minQuality
        self.maxQuality = maxQuality
        self.allowedError = allowedError
    }

    /// No search: the request's quality.
    public static let none = AutoQuality(method: .none, target: 0, minQuality: 70, maxQuality: 80, allowedError: 0)

    /// imgproxy's defaults for `method` (its `dssim` example: 0.02 within 0.001, quality
    /// 70…80; `size`: 10 KiB, quality 10…80), and for `ssimulacra2` a target of 80 points
    /// (between "high quality" and "visually lossless") within 2 points, quality 30…95.
    public static func defaults(for method: Method) -> AutoQuality {
        switch method {
        case .none: .none
        case .size: AutoQuality(method: .size, target: 10_240, minQuality: 10, maxQuality: 80, allowedError: 0.05)
        case .dssim: AutoQuality(method: .dssim, target: 0.02, minQuality: 70, maxQuality: 80, allowedError: 0.001)
        case .ssimulacra2: AutoQuality(method: .ssimulacra2, target: 80, minQuality: 30, maxQuality: 95, allowedError: 2)
        }
    }

    /// The largest `size` target accepted (bytes).
    public static let maximumSizeTarget = 1 << 30

    /// The SSIMULACRA2 score that stands for a DSSIM value: a fixed monotone mapping through
    /// a few anchor pairs (DSSIM 0 ↔ 100 points, 0.001 ↔ 90, 0.01 ↔ 80, 0.02 ↔ 75, 0.05 ↔ 62,
    /// 0.1 ↔ 50, 0.3 ↔ 20, 1 ↔ −20), linear in log-DSSIM between them. An approximation of the
    /// two metrics' usual agreement on compressed photos, not a measurement of DSSIM.
    public static func ssimulacra2Points(dssim: Double) -> Double {
        let anchors: [(dssim: Double, points: Double)] = [
            (0.001, 90), (0.01, 80), (0.02, 75), (0.05, 62), (0.1, 50), (0.3, 20), (1, -20),
        ]
        guard dssim > anchors[0].dssim else { return 100 - 10 * max(0, dssim) / anchors[0].dssim }
        for (low, high) in zip(anchors, anchors.dropFirst()) where dssim <= high.dssim {
            let t = (log(dssim) - log(low.dssim)) / (log(high.dssim) - log(low.dssim))
            return low.points + t * (high.points - low.points)
        }
        return anchors[anchors.count - 1].points
    }

    /// The target and allowed error in SSIMULACRA2 points (for `ssimulacra2` and `dssim`).
    var scoreTarget: (target: Double, allowed: Double) {
        guard method == .dssim else { return (target, allowedError) }
        let points = Self.ssimulacra2Points(dssim: target)
        return (points, max(0.25, points - Self.ssimulacra2Points(dssim: target + allowedError)))
    }

    /// The text the canonical options and result keys hold.
    var canonicalText: String { "aq:\(method.rawValue):\(target):\(minQuality):\(maxQuality):\(allowedError)" }
}
