import Foundation

/// One image request, parsed and checked once, in order (SPEC V-2 … V-6): the path split
/// (``ImageRequestPath``), the signature verified (``URLSigner``), the options parsed
/// (``ProcessingOptions``), the URL's `expires` checked, the source admitted by the
/// ``SourcePolicy`` (normalised), and the output format chosen. Everything after it works
/// from this value.
struct ParsedImageRequest: Sendable {
    /// The request path as received: the result-cache index's key.
    let path: String
    /// The normalised source URL.
    let source: String
    /// The processing options.
    let options: ProcessingOptions
    /// How the output format is chosen.
    let format: FormatChoice
    /// The `Accept` bucket the answer belongs to (``FormatVariant/any`` when the URL fixes the
    /// format).
    let variant: FormatVariant

    /// Parses and checks `path` for a client that sent `accept`, with the service's signer,
    /// presets, source policy, negotiation and clock.
    /// - Throws: the first check's ``ImageServiceError``.
    init(
        path: String, accept: String?, signer: URLSigner?, presets: PresetTable, policy: SourcePolicy,
        negotiation: FormatNegotiation, now: Date
    ) throws(ImageServiceError) {
        let request = try ImageRequestPath(path: path)
        if let signer, !signer.verify(signature: request.signature, path: request.signedPath) {
            throw ImageServiceError.badSignature
        }
        let normalized = try SourceURLNormalizer.normalize(request.source)
        let options = try ProcessingOptions.parse(segments: request.optionSegments, presets: presets)
        if Self.hasExpired(options.expires, now: now) { throw ImageServiceError.expired }
        try policy.check(normalized)
        if let fixed = options.format ?? request.extensionFormat {
            (format, variant) = (.fixed(fixed), .any)
        } else {
            variant = negotiation.variant(accept: accept)
            format = FormatChoice(negotiated: variant)
        }
        self.path = path
        self.source = normalized
        self.options = options
    }

    /// Whether a URL with `expires` (Unix seconds) has expired at `now`: the one test, for the
    /// full path and the hit path (``KnownAnswer/expires``).
    static func hasExpired(_ expires: Int64?, now: Date) -> Bool {
        guard let expires else { return false }
        return Int64(now.timeIntervalSince1970) > expires
    }
}
