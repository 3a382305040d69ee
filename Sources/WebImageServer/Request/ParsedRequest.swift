import Foundation

/// One request, parsed and checked once, in order (SPEC V-2 … V-6, V-14): the path after the
/// output's prefix split (``ImageRequestPath``), the signature verified (``URLSigner``), the
/// source normalised (``SourceURLNormalizer``), the output's own option segments taken
/// (``ServiceOutput/settings(from:)``), the processing options parsed from the rest
/// (``ProcessingOptions``), the URL's `expires` checked, the source admitted by the
/// ``SourcePolicy``, and the output settled (an image's format choice). Everything after it
/// works from this value.
struct ParsedRequest<Output: ServiceOutput>: Sendable {
    /// The request path as received (the output's prefix included): the hit path's key.
    let path: String
    /// The normalised source URL.
    let source: String
    /// The processing options.
    let options: ProcessingOptions
    /// What the request makes.
    let output: Output

    /// Parses and checks `path` for a client that sent `accept`, with the service's signer,
    /// presets, autoquality setting, source policy, negotiation and clock.
    /// - Throws: the first check's ``ImageServiceError``.
    init(
        path: String, accept: String?, signer: URLSigner?, presets: PresetTable, maxPipelines: Int = 0, autoquality: AutoQuality = .none,
        policy: SourcePolicy, negotiation: FormatNegotiation, now: Date
    ) throws(ImageServiceError) {
        let request = try ImageRequestPath(path: String(path.dropFirst(Output.pathPrefix.count)))
        if let signer, !signer.verify(signature: request.signature, path: request.signedPath) {
            throw ImageServiceError.badSignature
        }
        let normalized = try SourceURLNormalizer.normalize(request.source)
        var segments = request.optionSegments
        let settings = try Output.settings(from: &segments)
        let options = try ProcessingOptions.parse(segments: segments, presets: presets, maxPipelines: maxPipelines, autoquality: autoquality)
        if ProcessingOptions.hasExpired(options.expires, now: now) { throw ImageServiceError.expired }
        try policy.check(normalized)
        self.path = path
        self.source = normalized
        self.options = options
        output = Output(settings: settings, options: options, path: request, accept: accept, negotiation: negotiation)
    }

    /// Whether `path` (as ``ImageService/imagePath(_:_:)`` gives it) is a request for this output.
    static func isFor(_ path: String) -> Bool {
        Output.pathPrefix.isEmpty || path.hasPrefix(Output.pathPrefix + "/")
    }
}

extension ProcessingOptions {
    /// Whether a URL with `expires` (Unix seconds) has expired at `now`: the one test, for the
    /// full path and the hit path (``KnownAnswer/expires``).
    static func hasExpired(_ expires: Int64?, now: Date) -> Bool {
        guard let expires else { return false }
        return Int64(now.timeIntervalSince1970) > expires
    }
}
