import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization
import WebImage

/// Fetches sources (SPEC V-4): `http`/`https` through ``ImageDownloader`` with the address
/// policy, the disk cache as source cache; `s3://` through the same downloader, signed for the
/// configured endpoint (``ImageServiceConfiguration/s3``); `local://` under the configured root.
///
/// There is one downloader per event loop of NIO's shared group, the group the HTTP server's
/// connections run on: a request's fetch uses its own loop's downloader (``downloader()``), so
/// the download, the egress proxy's tunnel and the request line stay on one thread.
final class SourceStore: Sendable {
    /// The downloaders, one per event loop (the same settings each).
    let downloaders: [ImageDownloader]
    /// The loops of ``downloaders``, in the same order.
    private let loops: [any EventLoop]
    /// The downloader for a caller on no loop of the group, in turn.
    private let nextDownloader = Atomic<Int>(0)
    let diskCache: DiskCache?
    let configuration: ImageServiceConfiguration
    let flights = SingleFlight<String, SourceImage>()
    /// Sources requests hold now: reused instead of fetched again while fresh.
    let inUse = SourcesInUse()

    init(configuration: ImageServiceConfiguration) {
        self.configuration = configuration
        var downloaderConfiguration = ImageDownloaderConfiguration()
        downloaderConfiguration.addressPolicy = configuration.addressPolicy
        downloaderConfiguration.maximumResponseSize = Int64(configuration.limits.maxSourceBytes)
        downloaderConfiguration.downloadTimeout = configuration.downloadTimeout
        downloaderConfiguration.maximumDownloadDuration = configuration.downloadTimeout
        downloaderConfiguration.maximumRedirects = configuration.maximumRedirects
        downloaderConfiguration.maxConcurrentDownloads = 64
        if let s3 = configuration.s3 { downloaderConfiguration.requestModifier = S3RequestSigner(s3) }
        let loops = Array(MultiThreadedEventLoopGroup.singleton.makeIterator())
        self.loops = loops
        downloaders = loops.map { loop in
            var configuration = downloaderConfiguration
            configuration.eventLoopGroup = loop
            return ImageDownloader(configuration: configuration)
        }
        diskCache = configuration.cacheDirectory.map {
            DiskCache(directory: $0, configuration: DiskCacheConfiguration(maxDiskAge: configuration.cacheMaxAge, maxDiskSize: configuration.cacheMaxSize))
        }
        policy = SourcePolicy(configuration: configuration)
    }

    /// Which sources may be read; `local://` paths are resolved by it.
    let policy: SourcePolicy

    /// The downloader of the event loop the caller runs on, or one in turn off the loops.
    func downloader() -> ImageDownloader {
        if let index = loops.firstIndex(where: { $0.inEventLoop }) { return downloaders[index] }
        return downloaders[nextDownloader.wrappingAdd(1, ordering: .relaxed).oldValue % downloaders.count]
    }

    /// Cancels every download and shuts the downloaders down.
    func shutdown() async {
        for downloader in downloaders { try? await downloader.shutdown() }
    }

    /// The source's bytes; concurrent fetches of one source share one download, and a source
    /// another request still holds is shared while fresh (``SourcesInUse``).
    func fetch(_ source: String) async throws -> SourceImage {
        if let held = inUse.source(for: source) { return held }
        let fetched = try await flights.run(source) { [self] in try await fetchAnew(source) }
        inUse.insert(fetched, for: source)
        return fetched
    }

    /// The source from the local root, the source cache or the origin. What blocks (the local
    /// file, the source cache's files, hashing the bytes) runs off the connection's event loop
    /// (``offLoop(_:)``); the download does not block.
    private func fetchAnew(_ source: String) async throws -> SourceImage {
        if source.lowercased().hasPrefix("local://") { return try await offLoop { try readLocal(source) } }
        var validators: HTTPCacheValidators?
        var cachedData: Data?
        var cachedExtended: DiskCacheExtendedData?
        if let diskCache {
            switch await offLoop({ cached(source, in: diskCache) }) {
            case let .fresh(image): return image
            case let .stale(data, extended):
                validators = HTTPCacheValidators(entityTag: extended?.eTag, lastModified: extended?.lastModified)
                cachedData = data
                cachedExtended = extended
            case .none: break
            }
        }
        let data: Data, response: ImageResponseInfo?
        do {
            (data, response) = try await download(source, validators: validators)
        } catch ImageServiceError.notModified {
            // The origin confirmed the cached copy: use it and restart its freshness period.
            guard let cachedData, let diskCache else { throw ImageServiceError.sourceFailed("unexpected 304") }
            return await offLoop {
                try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: diskCache.path(for: source).path)
                return SourceImage(
                    data: cachedData, identity: Self.identity(of: cachedData, stored: cachedExtended, source: source),
                    lastModified: validators?.lastModified, layer: "disk-revalidated",
                    freshFor: configuration.sourceRevalidateAfter)
            }
        }
        let lastModified = response?.value(forHeader: "Last-Modified")
        let entityTag = response?.value(forHeader: "ETag")
        // The validator names what `source` answered only when no redirect came between.
        let answeredDirectly = response?.url != nil && response?.url == requestURL(for: source)
        let validator = answeredDirectly ? SourceIdentity.validator(entityTag, source: source) : nil
        let identity: String
        if let validator { identity = validator } else { identity = await offLoop { SourceIdentity.content(data) } }
        if let diskCache {
            var extended = DiskCacheExtendedData()
            extended.originalURL = source
            extended.eTag = entityTag
            extended.lastModified = lastModified
            if answeredDirectly { extended.userData = Self.directValidatorMark }
            try? await diskCache.storeAndWait(data, forKey: source, extendedData: extended)
        }
        return SourceImage(
            data: data, identity: identity, lastModified: lastModified, layer: "origin", freshFor: configuration.sourceRevalidateAfter)
    }

    /// What the source cache holds for `source`.
    private enum CachedSource {
        /// A copy to answer with as it is.
        case fresh(SourceImage)
        /// A copy to revalidate with the origin.
        case stale(Data, DiskCacheExtendedData?)
    }

    /// The source cache's copy of `source`, fresh or to revalidate, or `nil` (reads files).
    private func cached(_ source: String, in diskCache: DiskCache) -> CachedSource? {
        guard let cached = diskCache.data(for: source) else { return nil }
        let extended = diskCache.extendedData(for: source)
        let fresh = SourceStore.age(of: diskCache.path(for: source)) < configuration.sourceRevalidateAfter
        let stored = HTTPCacheValidators(entityTag: extended?.eTag, lastModified: extended?.lastModified)
        guard fresh || stored.isEmpty else { return .stale(cached, extended) }
        let left = max(0, configuration.sourceRevalidateAfter - SourceStore.age(of: diskCache.path(for: source)))
        return .fresh(SourceImage(
            data: cached, identity: Self.identity(of: cached, stored: extended, source: source), lastModified: extended?.lastModified,
            layer: "disk", freshFor: fresh ? left : configuration.sourceRevalidateAfter))
    }

    private func download(_ source: String, validators: HTTPCacheValidators?) async throws -> (Data, ImageResponseInfo?) {
        guard let url = URL(string: source), url.host != nil else { throw ImageServiceError.badURL("source URL is not a URL") }
        var context = WebImageContext()
        if let validators { context.cachedResponseValidators = validators }
        let box = CancellationRelay<DownloadToken> { $0.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, ImageResponseInfo?), any Error>) in
                let token = downloader().downloadImage(with: url, options: [.avoidDecodeImage], context: context) { result in
                    switch result {
                    case let .success(loaded): continuation.resume(returning: (loaded.data, loaded.response))
                    case let .failure(error): continuation.resume(throwing: self.map(error))
                    }
                }
                box.set(token)
            }
        } onCancel: {
            box.cancel()
        }
    }

    /// The URL the downloader asks first for `source`: the source itself, or for `s3://` the
    /// configured endpoint's URL of the object (``S3Configuration/requestURL(for:)``).
    func requestURL(for source: String) -> URL? {
        guard let url = URL(string: source) else { return nil }
        guard url.scheme?.lowercased() == "s3", let s3 = configuration.s3 else { return url }
        return (try? S3ObjectLocation(url)).flatMap { try? s3.requestURL(for: $0) }
    }

    /// Warns of sources the S3 endpoint refused, with what to check.
    private let refusals = RateLimitedWarning(logger: Logger(label: "webimage.server.sources"))

    /// The service error for a download error; an S3 refusal (``S3RequestSigner/refusal(_:body:)``)
    /// is logged whole and answered with its status and S3's error code only.
    func map(_ error: WebImageError) -> any Error {
        if case let .invalidDownloadResponse(reason) = error, let summary = S3RequestSigner.refusalSummary(of: reason) {
            refusals.warn("s3 source: \(reason)")
            return ImageServiceError.sourceFailed(summary)
        }
        return Self.map(error)
    }

    /// The service error for a download error.
    static func map(_ error: WebImageError) -> any Error {
        switch error {
        case .addressRefused, .unsupportedURL: return ImageServiceError.sourceNotAllowed("address refused")
        case let .invalidDownloadStatusCode(code) where code == 404 || code == 410: return ImageServiceError.sourceNotFound
        case let .invalidDownloadStatusCode(code): return ImageServiceError.sourceFailed("origin status \(code)")
        case .responseTooLarge, .decompressedResponseTooLarge: return ImageServiceError.tooLarge("source exceeds the byte limit")
        case .timedOut: return ImageServiceError.timedOut
        case .cancelled: return CancellationError()
        case .cacheNotModified: return ImageServiceError.notModified
        case let .transport(transport):
            if transport.kind == .timedOut { return ImageServiceError.timedOut }
            if transport.kind == .tooManyRedirects { return ImageServiceError.sourceFailed("too many redirects") }
            return ImageServiceError.sourceFailed("origin unreachable")
        case let .invalidURL(text): return ImageServiceError.badURL("source URL cannot be requested: \(text ?? "")")
        case .badImageData(let reason) where reason == "empty response body":
            // The origin's fault, said in words (not a bad gateway).
            return ImageServiceError.unprocessable("the source is empty (0 bytes)")
        case let .invalidDownloadResponse(reason) where reason.hasPrefix("the server redirected"):
            return ImageServiceError.sourceFailed(reason)
        default: return ImageServiceError.sourceFailed(error.code)
        }
    }

    /// Reads a `local://` file under the root (``SourcePolicy/localPath(of:)``).
    func readLocal(_ source: String) throws -> SourceImage {
        let candidate = try policy.localPath(of: source)
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: candidate),
              (attributes[.type] as? FileAttributeType) == .typeRegular else { throw ImageServiceError.sourceNotFound }
        if let size = attributes[.size] as? Int, size > configuration.limits.maxSourceBytes {
            throw ImageServiceError.tooLarge("source exceeds the byte limit")
        }
        guard let data = FileManager.default.contents(atPath: candidate) else { throw ImageServiceError.sourceNotFound }
        return SourceImage(data: data, identity: SourceIdentity.content(data), lastModified: nil, layer: "local", freshFor: configuration.sourceRevalidateAfter)
    }

    /// Seconds since `file` was last written (infinity when unknown).
    static func age(of file: URL) -> Double {
        guard let date = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.modificationDate] as? Date else { return .infinity }
        return Date().timeIntervalSince(date)
    }

    /// Marks a source-cache entry whose `ETag` came straight from its URL (no redirect), so
    /// that the validator may stand for its bytes (``SourceIdentity``).
    static let directValidatorMark = Data("validator-of-url".utf8)

    /// The identity of a source-cache entry: its stored validator when the entry was fetched
    /// without a redirect, else its bytes' hash.
    static func identity(of data: Data, stored: DiskCacheExtendedData?, source: String) -> String {
        let direct = stored?.userData == directValidatorMark
        return SourceIdentity.of(data, entityTag: direct ? stored?.eTag : nil, source: source)
    }
}
