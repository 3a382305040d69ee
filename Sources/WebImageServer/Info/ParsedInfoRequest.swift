import Foundation
import WebImage

/// One `/info` request, parsed and checked once, in the order of ``ParsedImageRequest``: the
/// path after `/info` split (``ImageRequestPath``), the signature verified, the source
/// normalised, the options parsed (``ProcessingOptions``, plus `blurhash_components`/`bhc`, which
/// only `/info` takes), `expires` checked, the source admitted by the ``SourcePolicy``.
struct ParsedInfoRequest: Sendable {
    /// The path prefix of info requests.
    static let prefix = "/info"

    /// The request path as received, `/info` included: the result-cache index's key.
    let path: String
    /// The normalised source URL.
    let source: String
    /// The processing options (orientation, colour handling, `expires`, `cachebuster`, …).
    let options: ProcessingOptions
    /// The BlurHash components asked for; `nil` chooses them from the aspect ratio.
    let components: BlurHashComponents?

    /// Whether `path` (as ``ImageService/imagePath(_:_:)`` gives it) is an info request.
    static func isInfo(_ path: String) -> Bool { path.hasPrefix(prefix + "/") }

    /// Parses and checks `path` (starting with `/info/`) with the service's signer, presets,
    /// source policy and clock.
    /// - Throws: the first check's ``ImageServiceError``.
    init(path: String, signer: URLSigner?, presets: PresetTable, policy: SourcePolicy, now: Date) throws(ImageServiceError) {
        let request = try ImageRequestPath(path: String(path.dropFirst(Self.prefix.count)))
        if let signer, !signer.verify(signature: request.signature, path: request.signedPath) {
            throw ImageServiceError.badSignature
        }
        let normalized = try SourceURLNormalizer.normalize(request.source)
        var components: BlurHashComponents?
        var segments: [String] = []
        for segment in request.optionSegments {
            if let parsed = try Self.components(segment) { components = parsed } else { segments.append(segment) }
        }
        let options = try ProcessingOptions.parse(segments: segments, presets: presets)
        if ParsedImageRequest.hasExpired(options.expires, now: now) { throw ImageServiceError.expired }
        try policy.check(normalized)
        self.path = path
        self.source = normalized
        self.options = options
        self.components = components
    }

    /// The components of a `blurhash_components:%x:%y` (`bhc`) segment, each 1…9; `nil` for
    /// any other option.
    static func components(_ segment: String) throws(ImageServiceError) -> BlurHashComponents? {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard let name = parts.first, name == "blurhash_components" || name == "bhc" else { return nil }
        guard parts.count == 3, let x = Int(parts[1]), let y = Int(parts[2]), let components = BlurHashComponents(x: x, y: y) else {
            throw .badOption(option: name, reason: "expects two whole numbers from 1 to 9 (x:y)")
        }
        return components
    }

    /// What stands for the output format in the ETag and the result-store key: `info:` and the
    /// BlurHash components (`auto` when chosen from the aspect ratio).
    var storeFormatChoice: String { "info:" + (components?.description ?? "auto") }

    /// The ETag of the info of a source with `identity`: distinct from every image result's.
    func etag(identity: String) -> String {
        ResponseHeaders.etag(identity: identity, options: options, format: storeFormatChoice)
    }
}
