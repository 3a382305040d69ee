import Foundation

/// `format:best`/`@best` (SPEC V-15, imgproxy's best format): the result is encoded in several
/// candidate formats and the smallest is answered. The `best-format-*` settings, imgproxy's
/// `IMGPROXY_BEST_FORMAT_*`:
///
/// - ``candidates``: the formats tried, in the order they are tried (`best-format-candidates`;
///   WebP and AVIF only for clients whose `Accept` names them, then the answer varies by
///   `Accept`; JPEG not for a result with transparency).
/// - ``complexityThreshold``: results whose `ImageComplexity` is below it may also be encoded
///   losslessly (PNG, GIF); above it the lossless candidates are not tried. On this service's
///   complexity scale: flat graphics measure under 3, photos 4 to 10.
/// - ``maxResolution``: above this many megapixels (0: no limit), one format is picked without
///   trying the others: the first lossless candidate for a result under the threshold,
///   otherwise the first lossy one.
/// - ``byDefault``: `best` for requests that name no format (instead of negotiating one).
/// - ``allowSkips``: with `best`, sources in a `skip_processing` format (and SVG) are answered
///   as they are.
///
/// With `aq`, every lossy candidate is searched (`QualitySearch`) for the same target, and a
/// candidate is dropped as soon as it cannot win: an encode that misses the target and is
/// already larger than the best so far (a higher quality would be larger still), or one whose
/// size, extrapolated down to the lowest quality allowed, stays larger than the best.
public struct BestFormatSettings: Sendable, Hashable {
    public var candidates: [OutputFormat] = [.avif, .webp, .jpeg, .png]
    public var complexityThreshold = 3.0
    public var maxResolution = 0.0
    public var byDefault = false
    public var allowSkips = false

    /// imgproxy's defaults, with AVIF, WebP, JPEG and PNG as candidates.
    public init() {}

    /// The candidates for a client whose `Accept` chose `variant`.
    func candidates(for variant: FormatVariant) -> [OutputFormat] {
        candidates.filter { format in
            switch format {
            case .avif: variant == .avif
            case .webp: variant == .avif || variant == .webp
            default: true
            }
        }
    }

    /// The `Accept` bucket of a request for `best`, as negotiation's (``FormatNegotiation``)
    /// whether or not negotiation is on: `.avif` when the client takes AVIF (then WebP too
    /// is tried), `.webp` for WebP, `.other` for neither; `.any` when no candidate depends on it.
    func variant(accept: String?) -> FormatVariant {
        guard candidates.contains(.avif) || candidates.contains(.webp) else { return .any }
        let accepted = (accept ?? "").lowercased()
        if accepted.contains("image/avif") { return .avif }
        if accepted.contains("image/webp") { return .webp }
        return .other
    }
}

/// A request's `best`: the candidates its client can take, and the settings.
struct BestFormatRequest: Sendable, Hashable {
    let candidates: [OutputFormat]
    let settings: BestFormatSettings
}
