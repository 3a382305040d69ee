import Foundation

extension ImageManager {
    /// What a memory lookup is for: each purpose adds its own condition to the shared ones.
    enum MemoryLookup {
        /// The synchronous fast path at the start of a load; not when the caller also wants
        /// the bytes (`queryMemoryData`: memory holds no bytes, the cache query reads them).
        case fastPath
        /// A last look before downloading: the same image may have finished loading for
        /// another load while this one queried the disk.
        case beforeDownload
        /// The progressive preview a download of the same image still going on keeps in
        /// memory (`progressiveLoad` loads only).
        case preview
    }

    /// The one memory lookup of a load: the image in `cache`'s memory under `key` (or, for
    /// ``MemoryLookup/preview``, under its preview key), when the load may read memory — it
    /// neither asked for the loader only (`fromLoaderOnly`) nor for bytes only
    /// (`avoidDecodeImage`), and its query cache type includes memory. The fast path and the
    /// look before downloading also skip loads that ask for a fresh download (`refreshCached`),
    /// and apply the frame options (`decodeFirstFrameOnly`) to what they find.
    static func memoryImage(
        _ lookup: MemoryLookup, key: String?, in cache: ImageCache, options: WebImageOptions, context: WebImageContext
    ) -> Image? {
        guard let key, !options.contains(.fromLoaderOnly), !options.contains(.avoidDecodeImage),
            (context.queryCacheType ?? .all).includesMemory
        else { return nil }
        switch lookup {
        case .fastPath, .beforeDownload:
            guard !options.contains(.refreshCached), lookup == .beforeDownload || !options.contains(.queryMemoryData),
                let image = cache.imageFromMemoryCache(forKey: key)
            else { return nil }
            return ImageCache.applyingFrameOptions(image, options: options)
        case .preview:
            guard options.contains(.progressiveLoad) else { return nil }
            return cache.memoryCache.image(forKey: ImageCache.previewCacheKey(for: key))
        }
    }

    /// Whether the fast path looks in memory for a load with `key`, `options` and `context`
    /// (the conditions of ``memoryImage(_:key:in:options:context:)`` for
    /// ``MemoryLookup/fastPath``).
    static func fastPathLooks(key: String?, options: WebImageOptions, context: WebImageContext) -> Bool {
        key != nil && !options.contains(.fromLoaderOnly) && !options.contains(.avoidDecodeImage)
            && (context.queryCacheType ?? .all).includesMemory && !options.contains(.refreshCached)
            && !options.contains(.queryMemoryData)
    }

    /// ``memoryImage(_:key:in:options:context:)`` for a started load (its final key and cache).
    func memoryImage(_ lookup: MemoryLookup, _ request: ImageLoadRequest) -> Image? {
        Self.memoryImage(lookup, key: request.finalKey, in: request.cache, options: request.options, context: request.context)
    }
}
