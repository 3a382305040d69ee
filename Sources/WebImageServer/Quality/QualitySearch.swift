import Foundation
import WebImage

/// The quality search of ``AutoQuality`` (SPEC V-15), over integer qualities in `min…max`,
/// with as few encodes as it can:
///
/// 1. Encode at the predicted quality (``QualityPrediction``, from the image's complexity; for
///    `size`, the maximum quality, which most images at a sane byte target already meet).
/// 2. Stop when that result meets the target within the allowed error.
/// 3. Otherwise step once along the typical curve's slope (or, for `size`, log-bytes falling
///    2.5 % a quality point), aiming half the allowed error inside the target.
/// 4. From then on, interpolate between the closest result that meets the target and the
///    closest that misses it (a secant), and stop when one meets it within the allowed error,
///    when the two are one quality apart, at the range's end, or after ``maximumEncodes``.
///    A result that meets the target settles the search sooner: after two encodes when it is
///    within three times the allowed error, after three (``settleAfter``) in any case.
///
/// The result is the lowest quality that met a score target (the highest that met a size
/// target); when none did, the range's end nearest to meeting it (max for a score, min for
/// a size). A caller may `abandon` the search after any encode (`format:best` does, for a
/// candidate that can no longer win).
struct QualitySearch {
    /// The most encodes one search makes.
    static let maximumEncodes = 6
    /// After this many encodes, a result that meets the target ends the search.
    static let settleAfter = 3

    /// One encode.
    struct Trial {
        let quality: Int
        let data: Data
        /// The SSIMULACRA2 score, or the byte count for `size`.
        let value: Double
    }

    /// What the search chose.
    struct Outcome {
        /// The chosen encode.
        let chosen: Trial
        /// Every encode made, in order.
        let trials: [Trial]
        /// Whether `abandon` stopped the search (``chosen`` is then the last encode).
        var abandoned = false
    }

    let settings: AutoQuality
    let format: OutputFormat
    let complexity: Double

    /// Runs the search: `encode` makes the file at a quality, `score` measures it (only for a
    /// score method).
    func run(
        encode: (Int) throws(ImageServiceError) -> Data, score: (Data) throws(ImageServiceError) -> Double,
        abandon: (Trial, _ meetsTarget: Bool) -> Bool = { _, _ in false }
    ) throws(ImageServiceError) -> Outcome {
        let bySize = settings.method == .size
        let (target, allowed) = bySize ? (settings.target, settings.target * settings.allowedError) : settings.scoreTarget
        let low = settings.minQuality, high = settings.maxQuality
        let prediction = QualityPrediction(format: format)
        // For a score, more quality means a higher value; for bytes, too: "meets" flips.
        func meets(_ value: Double) -> Bool { bySize ? value <= target : value >= target }
        func closeEnough(_ value: Double, slack: Double = 1) -> Bool {
            bySize ? value >= target - slack * allowed : value <= target + slack * allowed
        }
        var trials: [Trial] = []
        var quality = bySize ? high : clamp(Int(prediction.quality(for: target + allowed / 2, complexity: complexity).rounded()))
        while true {
            let data = try encode(quality)
            let value = bySize ? Double(data.count) : try score(data)
            let trial = Trial(quality: quality, data: data, value: value)
            trials.append(trial)
            if abandon(trial, meets(value)) { return Outcome(chosen: trial, trials: trials, abandoned: true) }
            let passing = trials.filter { meets($0.value) }, failing = trials.filter { !meets($0.value) }
            // Score: the lowest passing quality; size: the highest.
            let best = bySize ? passing.max { $0.quality < $1.quality } : passing.min { $0.quality < $1.quality }
            let nearestMiss = bySize
                ? failing.filter { $0.quality > (best?.quality ?? low - 1) }.min { $0.quality < $1.quality }
                : failing.filter { $0.quality < (best?.quality ?? high + 1) }.max { $0.quality < $1.quality }
            if let best {
                let settled = trials.count >= Self.settleAfter || (trials.count >= 2 && closeEnough(best.value, slack: 3))
                if closeEnough(best.value) || best.quality == (bySize ? high : low) || settled {
                    return Outcome(chosen: best, trials: trials)
                }
                if let nearestMiss, abs(nearestMiss.quality - best.quality) <= 1 { return Outcome(chosen: best, trials: trials) }
            } else if let nearestMiss, nearestMiss.quality == (bySize ? low : high) {
                return Outcome(chosen: nearestMiss, trials: trials)
            }
            if trials.count >= Self.maximumEncodes {
                return Outcome(chosen: best ?? nearestMiss ?? trials[trials.count - 1], trials: trials)
            }
            let aim = bySize ? target - allowed / 2 : target + allowed / 2
            var next: Double
            if let best, let nearestMiss {
                next = secant(best, nearestMiss, aim: aim, bySize: bySize)
            } else {
                let from = best ?? nearestMiss!
                if bySize {
                    next = Double(from.quality) + log(aim / max(1, from.value)) / 0.025
                } else {
                    next = Double(from.quality) + (aim - from.value) / prediction.slope(at: Double(from.quality))
                }
            }
            var candidate = clamp(Int(next.rounded()))
            // Stay strictly between the bracket, and never repeat a quality.
            if let best, let nearestMiss {
                let lower = min(best.quality, nearestMiss.quality) + 1, upper = max(best.quality, nearestMiss.quality) - 1
                candidate = min(max(candidate, lower), upper)
            }
            if trials.contains(where: { $0.quality == candidate }) {
                let from = trials[trials.count - 1].quality
                candidate = clamp(meets(trials[trials.count - 1].value) == bySize ? from + 1 : from - 1)
                if trials.contains(where: { $0.quality == candidate }) {
                    return Outcome(chosen: best ?? nearestMiss ?? trials[trials.count - 1], trials: trials)
                }
            }
            quality = candidate
        }
    }

    private func clamp(_ quality: Int) -> Int { min(max(quality, settings.minQuality), settings.maxQuality) }

    /// The quality where the line through `a` and `b` reaches `aim` (in log-bytes for a size).
    private func secant(_ a: Trial, _ b: Trial, aim: Double, bySize: Bool) -> Double {
        let f = { (value: Double) in bySize ? log(max(1, value)) : value }
        let (va, vb) = (f(a.value), f(b.value))
        guard abs(vb - va) > 1e-9 else { return Double(a.quality + b.quality) / 2 }
        return Double(a.quality) + (f(aim) - va) / (vb - va) * Double(b.quality - a.quality)
    }
}
