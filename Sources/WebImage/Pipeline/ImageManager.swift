import CoreMetrics
import Foundation
import Synchronization

/// The pipeline (SPEC M-1…M-12): one call from a URL to an image, through the failed-URL list,
/// the memory and disk caches, the loader, the transformer, and back into the caches.
///
/// ```swift
/// let result = try await ImageManager.shared.loadImage(with: url)
/// ```
///
/// The flow of one request: options processor → failed-URL check → cache query (memory, then
/// disk) → download when allowed and needed (coalesced, decoded off the network threads) →
/// transform → store (memory and disk, original and transformed per the cache types) →
/// completion on the callback queue.
public final class ImageManager: ImageManaging {
    /// The process-wide defaults: this type's and ``WebImageDefaults``'s, in one lock.
    struct Defaults {
        var cache: ImageCache?
        var loader: (any ImageLoader)?
        /// ``WebImageDefaults/manager``.
        var manager: (any ImageManaging)?
    }

    static let defaults = Mutex(Defaults())

    /// The cache a manager created without one uses (default ``ImageCache/shared``). Set it
    /// before the first use of ``shared``.
    public static var defaultImageCache: ImageCache {
        get { defaults.withLock { $0.cache } ?? ImageCache.shared }
        set { defaults.withLock { $0.cache = newValue } }
    }

    /// The loader a manager created without one uses (default: a ``LoadersManager`` with the
    /// `file:`/`data:` loader and ``ImageDownloader/shared``). Set it before the first use of
    /// ``shared``.
    public static var defaultImageLoader: any ImageLoader {
        get { defaults.withLock { $0.loader } ?? LoadersManager() }
        set { defaults.withLock { $0.loader = newValue } }
    }

    /// The shared manager, made from ``defaultImageCache`` and ``defaultImageLoader`` on first use.
    public static let shared = ImageManager()

    /// The cache this manager queries and fills.
    public let imageCache: ImageCache
    /// The loader this manager downloads with.
    public let imageLoader: any ImageLoader
    /// URLs whose load failed permanently (SPEC M-3).
    public let failedURLs = FailedURLList()

    struct Settings {
        var optionsProcessor: (any OptionsProcessor)?
        var transformer: (any ImageTransformer)?
        var cacheKeyFilter: (any CacheKeyFilter)?
        var cacheSerializer: (any CacheSerializer)?
        var callbackQueue: CallbackQueue = .platformDefault
    }

    /// Everything mutable in the manager, in one lock: the settings (copied once per request,
    /// without touching the weak delegate or the running loads), the delegate and the loads in
    /// progress.
    private struct State {
        var settings = Settings()
        weak var delegate: (any ImageManagerDelegate)?
        var running: [ObjectIdentifier: ImageCombinedOperation] = [:]
    }

    private let state = Mutex(State())

    /// The settings now (one copy per request).
    var settings: Settings { state.withLock { $0.settings } }

    /// The counters and timers this manager reports (SPEC X-7).
    let metrics: PipelineMetrics
    /// Transforms in flight, shared between loads of the same image.
    let sharedTransforms = SharedTransforms()
    /// Decodes in flight, shared between loads of the same bytes and decode options.
    let sharedDecodes = SharedDecodes()

    /// A manager over `cache` and `loader`, reporting its counters and timers through
    /// `metricsFactory` (the metrics are listed in <doc:Performance>).
    ///
    /// - Parameters:
    ///   - cache: The cache to query and fill.
    ///   - loader: The loader to download with.
    ///   - metricsFactory: Where the pipeline's counters and timers go. The default is the
    ///     factory bootstrapped with `MetricsSystem.bootstrap` when the manager is made, so
    ///     bootstrap before the first use of ``shared``; a test passes its own factory (for
    ///     example swift-metrics' `TestMetrics`) to read one manager's numbers.
    public init(
        cache: ImageCache = ImageManager.defaultImageCache, loader: any ImageLoader = ImageManager.defaultImageLoader,
        metricsFactory: any MetricsFactory = MetricsSystem.factory
    ) {
        imageCache = cache
        imageLoader = loader
        metrics = PipelineMetrics(factory: metricsFactory)
    }

    /// A global hook that may rewrite the options and context of every request (SPEC M-7).
    public var optionsProcessor: (any OptionsProcessor)? {
        get { state.withLock { $0.settings.optionsProcessor } }
        set { state.withLock { $0.settings.optionsProcessor = newValue } }
    }

    /// Vetoes downloads and failed-URL listing (held weakly).
    public var delegate: (any ImageManagerDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// The transformer for requests whose context sets none.
    public var transformer: (any ImageTransformer)? {
        get { state.withLock { $0.settings.transformer } }
        set { state.withLock { $0.settings.transformer = newValue } }
    }

    /// The cache key filter for requests whose context sets none (SPEC M-6).
    public var cacheKeyFilter: (any CacheKeyFilter)? {
        get { state.withLock { $0.settings.cacheKeyFilter } }
        set { state.withLock { $0.settings.cacheKeyFilter = newValue } }
    }

    /// The cache serializer for requests whose context sets none.
    public var cacheSerializer: (any CacheSerializer)? {
        get { state.withLock { $0.settings.cacheSerializer } }
        set { state.withLock { $0.settings.cacheSerializer = newValue } }
    }

    /// Where callbacks run for requests whose context sets none (SPEC M-11). Default:
    /// ``CallbackQueue/platformDefault`` — the main queue on Apple platforms, `.current` on Linux.
    public var callbackQueue: CallbackQueue {
        get { state.withLock { $0.settings.callbackQueue } }
        set { state.withLock { $0.settings.callbackQueue = newValue } }
    }

    /// Loads in progress. Every load leaves this count when it ends, however it ends.
    public var runningOperationCount: Int { state.withLock { $0.running.count } }

    /// Cancels every load in progress.
    public func cancelAll() {
        let operations = state.withLock { Array($0.running.values) }
        for operation in operations { operation.cancel() }
    }

    /// The key the pipeline stores and looks up the delivered image under, for `url` and
    /// `context` (SPEC M-6, Q-4; SDWebImage's `cacheKeyForURL:context:`): the original key (the
    /// context's or the manager's key filter, else the absolute URL string) with the thumbnail
    /// and transformer parts the context (or the manager's default transformer) adds.
    ///
    /// `nil` when `url` is `nil` or the key filter declines (no caching).
    public func cacheKey(for url: URL?, context: WebImageContext = WebImageContext()) -> String? {
        guard let url else { return nil }
        return ImageLoadRequest.keys(for: url, context: withDefaults(context)).final
    }

    /// The key of the original (untransformed, full-size) image of `url` under `context`: the
    /// key filter's, else the absolute URL string. Equal to ``cacheKey(for:context:)`` when the
    /// context asks for neither a thumbnail nor a transformer.
    public func originalCacheKey(for url: URL?, context: WebImageContext = WebImageContext()) -> String? {
        guard let url else { return nil }
        return withDefaults(context).cacheKey(for: url)
    }

    /// `context` with the manager's transformer, key filter and serializer filled in where the
    /// context has none.
    func withDefaults(_ context: WebImageContext) -> WebImageContext {
        Self.withDefaults(context, settings)
    }

    static func withDefaults(_ context: WebImageContext, _ settings: Settings) -> WebImageContext {
        var context = context
        // The manager's value is checked first: with no defaults set, no context lookup happens.
        if let transformer = settings.transformer, context.imageTransformer == nil { context.imageTransformer = transformer }
        if let filter = settings.cacheKeyFilter, context.cacheKeyFilter == nil { context.cacheKeyFilter = filter }
        if let serializer = settings.cacheSerializer, context.cacheSerializer == nil { context.cacheSerializer = serializer }
        return context
    }

    func register(_ operation: ImageCombinedOperation) {
        let count = state.withLock { state -> Int in
            state.running[ObjectIdentifier(operation)] = operation
            return state.running.count
        }
        metrics.runningOperations.record(count)
    }

    func unregister(_ operation: ImageCombinedOperation) {
        let count = state.withLock { state -> Int in
            state.running[ObjectIdentifier(operation)] = nil
            return state.running.count
        }
        metrics.runningOperations.record(count)
    }
}
