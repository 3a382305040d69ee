import Foundation
import WebImage

extension ProcessingStep {
    /// `autoquality`/`aq` and `format:best` (SPEC V-15): when the pipeline ends in an encode,
    /// the result encoded at the quality `QualitySearch` finds (for a score method, each
    /// candidate decoded and its first frame scored with SSIMULACRA2 against the processed
    /// first frame), in the one format asked for or, for `best`, in the smallest of the
    /// candidates (``BestFormatSettings``); without a search, at the request's quality. Leaves
    /// ``ProcessingContext/encoded`` and ``ProcessingContext/encodedFormat`` set.
    static let autoquality = ProcessingStep(name: "autoquality") { (context: inout ProcessingContext) throws(ImageServiceError) in
        guard let output = context.output else { return }
        var encoder = OutputEncoder(output: output, image: context.image)
        if output.candidates.isEmpty {
            let result = try encoder.encode(output.format, abandonAbove: nil)
            context.encoded = result
        } else {
            let choice = try encoder.best()
            context.encoded = choice.data
            context.encodedFormat = choice.format
        }
        context.encodes = encoder.encodes
        context.searched = encoder.searched
    }
}

/// The encodes of one request's output, counted.
struct OutputEncoder {
    let output: OutputEncoding
    let image: Image
    /// Encodes made.
    private(set) var encodes = 0
    /// Whether a quality search ran.
    private(set) var searched = false
    private var scorer: SSIMULACRA2.Scorer?
    /// The processed first frame prepared once for every candidate of every format, when it
    /// fits ``preparedReferenceBudget``.
    private var prepared: SSIMULACRA2.PreparedReference?
    /// The most bytes a prepared reference may hold (about 1.4 megapixels opaque, half that with
    /// alpha); larger references are compared in full each time.
    static let preparedReferenceBudget = 64 << 20
    private lazy var complexity: Double = image.frames.first.map { ImageComplexity.measure($0.pixels) } ?? 0

    init(output: OutputEncoding, image: Image) {
        self.output = output
        self.image = image
    }

    /// The result as `format`: searched when a search applies, else at the request's quality.
    /// With `abandonAbove` (the best size so far), `nil` once the format cannot come in under it.
    mutating func encode(_ format: OutputFormat, abandonAbove: Int?) throws(ImageServiceError) -> Data? {
        guard output.searches(format), let reference = image.frames.first?.pixels,
              reference.width >= SSIMULACRA2.minimumDimension, reference.height >= SSIMULACRA2.minimumDimension
        else {
            encodes += 1
            return try output.encode(image, as: format, quality: output.quality(for: format))
        }
        searched = true
        let scorer = self.scorer ?? SSIMULACRA2.Scorer()
        self.scorer = scorer
        let referenceSize = PixelSize(width: reference.width, height: reference.height)
        if prepared == nil,
           SSIMULACRA2.PreparedReference.byteCount(for: referenceSize, hasAlpha: !reference.isFullyOpaque())
            <= Self.preparedReferenceBudget {
            prepared = try? SSIMULACRA2.PreparedReference(reference)
        }
        let prepared = self.prepared
        let settings = output.autoquality(for: format)
        let search = QualitySearch(settings: settings, format: format, complexity: complexity)
        let (output, image, coders) = (self.output, self.image, self.output.coders)
        var count = 0
        defer { encodes += count }
        let outcome = try search.run(
            encode: { (quality: Int) throws(ImageServiceError) -> Data in
                if WorkCancellation.isCurrentCancelled { throw .timedOut }
                count += 1
                return try output.encode(image, as: format, quality: quality)
            },
            score: { (data: Data) throws(ImageServiceError) -> Double in
                do {
                    let decoded = try coders.decode(data, options: DecodeOptions(firstFrameOnly: true))
                    guard let pixels = decoded.frames.first?.pixels else { throw ImageServiceError.unprocessable("scoring failed") }
                    if let prepared { return try scorer.score(prepared: prepared, distorted: pixels) }
                    return try scorer.score(reference: reference, distorted: pixels)
                } catch {
                    throw .unprocessable("autoquality could not score its \(format.rawValue) result")
                }
            },
            abandon: { (trial: QualitySearch.Trial, meetsTarget: Bool) in
                guard let limit = abandonAbove else { return false }
                // A score search raises the quality after a miss, so the file only grows.
                if !meetsTarget || settings.method == .size { return trial.data.count >= limit }
                // A hit may still come down to the lowest quality: bytes fall about 2.5 % a
                // quality point.
                let lowest = Double(trial.data.count) * exp(-0.025 * Double(trial.quality - settings.minQuality))
                return lowest >= Double(limit)
            })
        return outcome.abandoned ? nil : outcome.chosen.data
    }

    /// `best`: the smallest of the candidates, each searched.
    mutating func best() throws(ImageServiceError) -> (format: OutputFormat, data: Data) {
        let settings = output.best
        let lossless = complexity < settings.complexityThreshold
        var candidates = output.candidates.filter { $0.isLossy || lossless }
        if image.hasAlpha { candidates.removeAll { $0 == .jpeg } }
        if image.frames.count > 1 { candidates.removeAll { !$0.isAnimatable } }
        if candidates.isEmpty { candidates = [output.candidates.first { !image.hasAlpha || $0 != .jpeg } ?? .png] }
        let pixels = image.pixelSize.pixelCount
        if settings.maxResolution > 0, Double(pixels) > settings.maxResolution * 1_000_000 {
            let pick = (lossless ? candidates.first { !$0.isLossy } : nil) ?? candidates.first { $0.isLossy } ?? candidates[0]
            candidates = [pick]
        }
        var best: (format: OutputFormat, data: Data)?
        for format in candidates {
            guard let data = try encode(format, abandonAbove: best?.data.count) else { continue }
            if best == nil || data.count < best!.data.count { best = (format, data) }
        }
        guard let best else { throw .unprocessable("encoding failed") }
        return best
    }
}
