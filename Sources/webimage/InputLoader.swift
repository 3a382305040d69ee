import Foundation
import Synchronization
import WebImage

/// Reads the inputs of `info` and `convert`: a file path, or an `http`, `https`, `s3`, `file` or
/// `data` URL whose bytes are loaded through the library's loaders (``LocalImageLoader`` and
/// ``ImageDownloader``, undecoded). One loader chain serves a whole command; call
/// ``shutdown()`` when done.
final class InputLoader: Sendable {
    /// The URL schemes read through the loaders; anything else is a path.
    static let schemes: Set<String> = ["http", "https", "s3", "file", "data"]

    private let downloader: ImageDownloader
    private let loaders: LoadersManager

    /// - Parameters:
    ///   - timeout: seconds a connection may wait for the server (to connect or between bytes).
    ///   - maxTime: `--max-time`: each download's total deadline. A parsed option only: an
    ///     unparsed `MaxTimeOption()` traps when read, so there is no default.
    ///   - addressPolicy: the addresses downloads may connect to (`--public-only`).
    init(timeout: Double = 30, maxTime: MaxTimeOption, addressPolicy: AddressPolicy = .permissive) {
        var configuration = ImageDownloaderConfiguration()
        configuration.downloadTimeout = timeout
        maxTime.apply(to: &configuration)
        configuration.addressPolicy = addressPolicy
        configuration.requestModifier = S3Sources.requestModifier()
        downloader = ImageDownloader(configuration: configuration)
        loaders = LoadersManager(loaders: [LocalImageLoader(), downloader])
    }

    /// The URL `input` names (`nil` for a path): one of ``schemes``, or — when no file has that
    /// name — any other `scheme:` (`ftp:`, `gopher:`, `foo:bar`), so that the loaders refuse it
    /// by its scheme (`unsupportedURL`, SPEC R-5) instead of it failing as a missing file.
    static func url(_ input: String) -> URL? {
        guard let colon = input.firstIndex(of: ":") else { return nil }
        let scheme = input[..<colon]
        if schemes.contains(scheme.lowercased()) { return URL(string: input) }
        guard let first = scheme.first, first.isASCII, first.isLetter,
            scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }),
            !FileManager.default.fileExists(atPath: input)
        else { return nil }
        return URL(string: input)
    }

    /// The bytes of `input`: read from the file system for a path, loaded for a URL.
    /// - Throws: the loader's ``WebImageError`` (`invalidDownloadStatusCode`, `transport`,
    ///   `responseTooLarge`, …), or `cacheIO` when a path cannot be read.
    func data(for input: String) async throws(WebImageError) -> Data {
        guard let url = Self.url(input) else {
            return try LocalFile.read(input)
        }
        let once = Mutex(false)
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Data, WebImageError>, Never>) in
            _ = loaders.requestImage(
                with: url, options: [.avoidDecodeImage], context: WebImageContext(), progress: nil
            ) { result in
                if case .success(let value) = result, !value.finished { return }
                guard once.withLock({ done in defer { done = true }; return !done }) else { return }
                continuation.resume(returning: result.map(\.data))
            }
        }
        let data = try result.get()
        if data.isEmpty { throw .badImageData(reason: "the response body is empty") }
        return data
    }

    /// Releases the downloader's HTTP client.
    func shutdown() async {
        try? await downloader.shutdown()
    }
}
