import Foundation
import WebImage

/// Which sources the service may read (SPEC V-4): the allow-list of prefixes, the schemes
/// (`http`, `https`, and `local://` under the configured root only) and the root itself, which
/// `..` and symbolic links may not leave. Sources are compared in their normalised form
/// (``SourceURLNormalizer``), the form the origin is also asked for. The downloader's address
/// policy (``ImageServiceConfiguration/addressPolicy``) applies below it, on every connection.
struct SourcePolicy: Sendable {
    /// The allow-list's prefixes, normalised; empty allows every source.
    let allowedPrefixes: [String]
    /// The directory `local://` sources are read from; `nil` refuses them.
    let localRoot: URL?
    /// Object storage for `s3://` sources (`--use-s3`); `nil` refuses them.
    let s3: S3Configuration?

    init(configuration: ImageServiceConfiguration) {
        allowedPrefixes = configuration.allowedSourcePrefixes.map { (try? SourceURLNormalizer.normalize($0)) ?? $0 }
        localRoot = configuration.localRoot
        s3 = configuration.s3
    }

    /// Refuses sources outside the allow-list, unknown schemes, `local://` without a root, and
    /// `s3://` without `--use-s3` or in a bucket the bucket rules refuse — before anything is
    /// sent to the endpoint.
    /// `source` is normalised (``SourceURLNormalizer``).
    func check(_ source: String) throws(ImageServiceError) {
        if !allowedPrefixes.isEmpty, !allowedPrefixes.contains(where: { source.hasPrefix($0) }) {
            throw .sourceNotAllowed("not in the allow-list")
        }
        let lower = source.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") { return }
        if lower.hasPrefix("local://") {
            guard localRoot != nil else { throw .sourceNotAllowed("local sources are off") }
            return
        }
        if lower.hasPrefix("s3://") {
            guard let s3 else { throw .sourceNotAllowed("S3 sources are off (--use-s3)") }
            guard let url = URL(string: source) else { throw .badURL("not an s3://bucket/key[?versionId=…] URL") }
            let location: S3ObjectLocation
            do { location = try S3ObjectLocation(url) } catch {
                // The key's dot segments are named: the other refusals are about the URL's form.
                let key = URLComponents(url: url, resolvingAgainstBaseURL: true)?.path ?? ""
                let dotted = S3ObjectLocation.dotSegmentRefusal(bucket: url.host ?? "", key: key.hasPrefix("/") ? String(key.dropFirst()) : key) != nil
                throw .badURL(dotted ? "an s3:// key may not have a '.' or '..' dot segment" : "not an s3://bucket/key[?versionId=…] URL")
            }
            if let reason = s3.refusalReason(forBucket: location.bucket) { throw .sourceNotAllowed(reason) }
            return
        }
        throw .sourceNotAllowed("unsupported scheme")
    }

    /// The file path of a `local://` source, resolved under the root: `..` and symbolic links
    /// may not leave it.
    func localPath(of source: String) throws(ImageServiceError) -> String {
        guard let localRoot else { throw .sourceNotAllowed("local sources are off") }
        let relative = String(source.dropFirst("local://".count))
        let rootPath = localRoot.standardizedFileURL.resolvingSymlinksInPath().path
        let candidate = URL(fileURLWithPath: rootPath).appendingPathComponent(relative).standardizedFileURL.resolvingSymlinksInPath().path
        // Compared as bytes: `String.hasPrefix` compares canonically equivalent characters
        // (`é` and `e` + U+0301) as equal, which name different directories on disk.
        guard candidate.utf8.starts(with: (rootPath.hasSuffix("/") ? rootPath : rootPath + "/").utf8) else {
            throw .sourceNotAllowed("outside the local root")
        }
        return candidate
    }
}
