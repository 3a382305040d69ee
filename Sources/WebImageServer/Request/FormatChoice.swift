import WebImage

/// Which output format a request gets (SPEC V-6), decided before the source is fetched: fixed by
/// the URL (`format` option or extension), chosen from `Accept` when negotiation is on, or
/// the source's own format.
enum FormatChoice: Hashable, Sendable {
    /// The URL names the format.
    case fixed(OutputFormat)
    /// `Accept` chose AVIF or WebP.
    case negotiated(OutputFormat)
    /// The source's format; when it cannot be encoded, PNG for an SVG (it keeps the
    /// transparency), else JPEG.
    case source
    /// `best`: the smallest of these candidates, chosen when rendering.
    case best(BestFormatRequest)

    /// The choice when the URL names no format and `Accept` chose `variant`.
    init(negotiated variant: FormatVariant) {
        switch variant {
        case .avif: self = .negotiated(.avif)
        case .webp: self = .negotiated(.webp)
        case .any, .other: self = .source
        }
    }

    /// The format to encode a source detected as `sourceFormat` in.
    func format(for sourceFormat: ImageFormat) -> OutputFormat {
        switch self {
        case let .fixed(format), let .negotiated(format): format
        case .source: OutputFormat(sourceFormat) ?? (sourceFormat == .svg ? .png : .jpeg)
        case let .best(request): request.candidates.first ?? .jpeg
        }
    }

    /// The choice as text, as result-store keys hold it (``ResultStoreKey``).
    var keyText: String {
        switch self {
        case let .fixed(format): "fixed:\(format.rawValue)"
        case let .negotiated(format): "negotiated:\(format.rawValue)"
        case .source: "source"
        case let .best(request): "best:" + request.candidates.map(\.rawValue).joined(separator: ",")
        }
    }

    /// Whether the answer depends on `Accept` (`Vary: Accept`) when the service `negotiates`.
    func varies(negotiating negotiates: Bool) -> Bool {
        if case .fixed = self { return false }
        if case let .best(request) = self { return request.settings.variant(accept: nil) != .any }
        return negotiates
    }
}
