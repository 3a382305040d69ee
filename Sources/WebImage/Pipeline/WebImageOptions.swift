/// Per-request switches with their SDWebImage meaning (SPEC M-4).
///
/// Options that only make sense with a UI toolkit (`avoidAutoSetImage`, `forceTransition`,
/// `delayPlaceholder`) act on display targets (the Binding layer) and are ignored elsewhere.
public struct WebImageOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Load a URL even if it failed before (bypass and, on success, clear the failed-URL list).
    public static let retryFailed = WebImageOptions(rawValue: 1 << 0)
    /// Download at low priority.
    public static let lowPriority = WebImageOptions(rawValue: 1 << 1)
    /// Download at high priority (ahead of queued normal/low downloads).
    public static let highPriority = WebImageOptions(rawValue: 1 << 2)
    /// Deliver partial images while the body arrives.
    public static let progressiveLoad = WebImageOptions(rawValue: 1 << 3)
    /// Revalidate a cached image with the server (ETag / Last-Modified); deliver the cached copy
    /// first, then the new one if it changed.
    public static let refreshCached = WebImageOptions(rawValue: 1 << 4)
    /// Send and store cookies for this request.
    public static let handleCookies = WebImageOptions(rawValue: 1 << 5)
    /// Accept TLS certificates that fail validation (testing only).
    public static let allowInvalidSSLCertificates = WebImageOptions(rawValue: 1 << 6)
    /// Show the placeholder only after a failed load (display targets).
    public static let delayPlaceholder = WebImageOptions(rawValue: 1 << 7)
    /// Apply the transformer to animated images too (otherwise they are left untransformed).
    public static let transformAnimatedImage = WebImageOptions(rawValue: 1 << 8)
    /// Do not set the image on the display target; only the completion receives it.
    public static let avoidAutoSetImage = WebImageOptions(rawValue: 1 << 9)
    /// Shrink images whose decoded size would exceed the scale-down byte limit.
    public static let scaleDownLargeImages = WebImageOptions(rawValue: 1 << 10)
    /// On a memory-cache hit, also read the encoded bytes from disk (asynchronously).
    public static let queryMemoryData = WebImageOptions(rawValue: 1 << 11)
    /// With `queryMemoryData`: read those bytes synchronously.
    public static let queryMemoryDataSync = WebImageOptions(rawValue: 1 << 12)
    /// On a memory miss, read and decode the disk entry synchronously on the caller's thread.
    public static let queryDiskDataSync = WebImageOptions(rawValue: 1 << 13)
    /// Only look in the caches; never download.
    public static let fromCacheOnly = WebImageOptions(rawValue: 1 << 14)
    /// Skip the cache query; always download.
    public static let fromLoaderOnly = WebImageOptions(rawValue: 1 << 15)
    /// Run the display transition even for memory-cache hits.
    public static let forceTransition = WebImageOptions(rawValue: 1 << 16)
    /// Return the encoded bytes without decoding them to an image.
    public static let avoidDecodeImage = WebImageOptions(rawValue: 1 << 17)
    /// Decode only the first frame of animated images.
    public static let decodeFirstFrameOnly = WebImageOptions(rawValue: 1 << 18)
    /// Decode every frame of an animation up front (instead of lazily by a player).
    public static let preloadAllFrames = WebImageOptions(rawValue: 1 << 19)
    /// Keep the animated-image class of a cached image (Apple adapters; no effect on Linux).
    public static let matchAnimatedImageClass = WebImageOptions(rawValue: 1 << 20)
    /// Call the completion only after the disk-cache write has finished.
    public static let waitStoreCache = WebImageOptions(rawValue: 1 << 21)
    /// Do not cancel the previous load of a display target when a new one starts.
    public static let avoidAutoCancelImage = WebImageOptions(rawValue: 1 << 22)
}
