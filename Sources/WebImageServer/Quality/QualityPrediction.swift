import Foundation
import WebImage

/// The first guess of `QualitySearch`: the quality a format needs for a SSIMULACRA2 target on
/// an image of a given `ImageComplexity`, and how fast the score moves with the quality there.
///
/// Each format has a typical score curve (measured with this service's encoders on photos of
/// the corpus reduced to 512 pixels: the median score at qualities 20, 40, 60, 75, 85 and 95).
/// The target is read off that curve, moved by ``qualityShift``, then by the image's
/// complexity. The shift and the complexity weight were fitted on 30 corpus images (photos and
/// graphics) fitted into 320×320, scored at every fifth quality: the pair that made the fewest
/// encodes without choosing higher qualities on average. For JPEG, detailed images need a higher
/// quality; for WebP and AVIF the reverse holds on this metric: flat graphics with hard colour
/// edges need more quality than photos, whose detail masks the loss.
struct QualityPrediction {
    /// Scores at qualities 0, 20, 40, 60, 75, 85, 95, 100 for one format.
    private let curve: [(quality: Double, score: Double)]
    /// Quality points added per complexity unit above ``typicalComplexity`` (fewer below;
    /// negative: fewer above).
    private let complexityWeight: Double
    /// Quality points added to every prediction of the format.
    private let qualityShift: Double
    /// The complexity of the images the curve was measured on.
    static let typicalComplexity = 6.0

    init(format: OutputFormat) {
        let scores: [Double]
        switch format {
        case .avif:
            scores = [-40, 5, 47, 72, 81, 87, 91, 96]
            complexityWeight = -0.5
            qualityShift = 8
        case .webp:
            scores = [0, 38, 55, 64, 70, 81, 89, 96]
            complexityWeight = -1.25
            qualityShift = -1
        default:
            scores = [0, 39, 61, 71, 78, 83, 92, 98]
            complexityWeight = 0.75
            qualityShift = 9
        }
        curve = zip([0.0, 20, 40, 60, 75, 85, 95, 100], scores).map { ($0, $1) }
    }

    /// The quality expected to reach `target` points on an image of `complexity`.
    func quality(for target: Double, complexity: Double) -> Double {
        var base = curve[curve.count - 1].quality
        for (low, high) in zip(curve, curve.dropFirst()) where target <= high.score {
            base = low.quality + (max(target, low.score) - low.score) / (high.score - low.score) * (high.quality - low.quality)
            break
        }
        let shift = max(-15, min(15, (complexity - Self.typicalComplexity) * complexityWeight))
        return base + qualityShift + shift
    }

    /// Score points per quality point on the typical curve near `quality` (at least 0.2).
    func slope(at quality: Double) -> Double {
        for (low, high) in zip(curve, curve.dropFirst()) where quality <= high.quality {
            return max(0.2, (high.score - low.score) / (high.quality - low.quality))
        }
        return 0.2
    }
}
