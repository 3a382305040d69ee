import Foundation

/// Everything one load needs after its options and context are settled: the keys, the cache
/// and loader it uses, and its callbacks.
struct ImageLoadRequest: Sendable {
    let url: URL
    let options: WebImageOptions
    let context: WebImageContext
    let cache: ImageCache
    let loader: any ImageLoader
    /// The key of the original image (SPEC M-6); `nil` when the key filter declines: no caching.
    let originalKey: String?
    /// The key of the delivered image: the original key plus page, thumbnail and transformer parts
    /// (SPEC Q-4). Equal to ``originalKey`` when there is neither.
    let finalKey: String?
    let transformer: (any ImageTransformer)?
    let progress: ImageProgressHandler?
    /// When the request started (for the load-duration metric).
    let startTime: UInt64
    /// Whether the synchronous prefix looked in memory under ``finalKey`` (and missed): the
    /// cache query then reads the disk only.
    var memoryLooked = false
    /// What the synchronous prefix found under ``finalKey`` with the synchronous query options
    /// (a miss, or a hit with `refreshCached`); the cache query stage starts from it.
    var prequeried: ImageCacheQueryResult?

    /// The layers the cache query reads under ``finalKey``: the context's (default all),
    /// without memory when the prefix already looked there.
    var finalQueryCacheType: ImageCacheType {
        let type = context.queryCacheType ?? .all
        guard memoryLooked else { return type }
        return type.includesDisk ? .disk : .none
    }

    /// A request for `url` whose `keys` were computed from `context` by
    /// ``keys(for:context:)`` (once per load, by the start stage).
    init(
        url: URL, keys: (original: String?, final: String?), options: WebImageOptions, context: WebImageContext,
        cache: ImageCache, loader: any ImageLoader, progress: ImageProgressHandler?, startTime: UInt64
    ) {
        self.url = url
        self.options = options
        self.context = context
        self.cache = cache
        self.loader = loader
        self.progress = progress
        self.startTime = startTime
        transformer = context.imageTransformer
        originalKey = keys.original
        finalKey = keys.final
    }

    /// The original and final cache keys of `url` under `context` (SPEC M-6, Q-4).
    static func keys(for url: URL, context: WebImageContext) -> (original: String?, final: String?) {
        guard let original = context.cacheKey(for: url) else { return (nil, nil) }
        var derived = context.decodedImageKey(for: original)
        if let transformer = context.imageTransformer {
            derived = ImageCache.cacheKey(for: derived, transformerKey: transformer.transformerKey)
        }
        return (original, derived)
    }

    /// Whether the delivered image is stored under a key of its own (thumbnail or transform).
    var hasDerivedKey: Bool { finalKey != originalKey }

    /// The cache that holds the original (the entry under ``originalKey``): the context's
    /// ``WebImageContext/originalImageCache`` when the delivered image is derived, else
    /// ``cache`` (then the original is the delivered image).
    var originalCache: ImageCache {
        hasDerivedKey ? (context.originalImageCache ?? cache) : cache
    }

    /// Whether the transformer applies to `image` (animated images only with
    /// `transformAnimatedImage`, SPEC M-9).
    func shouldTransform(_ image: Image) -> Bool {
        transformer != nil && (!image.isAnimated || options.contains(.transformAnimatedImage))
    }
}
