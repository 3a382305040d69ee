import Foundation

/// Where the images of one load go, decided once from the request and what the load
/// produced, then applied by the store stage (memory first, then disk).
///
/// After a download, with a key of its own for the delivered image (a thumbnail or a
/// transform): the original's bytes — and its image, when it was decoded at full size — under
/// the original key in the original's cache, with the original's store cache type (default
/// disk only); the delivered image under the final key, only when it really is derived (a
/// transform that declined stores nothing there). Without: the image and its bytes under the
/// one key. An image derived from the cached original: under the final key only.
struct StorePlan: Sendable {
    /// One entry to store.
    struct Write: Sendable {
        let image: Image?
        let data: Data?
        let key: String
        let cacheType: ImageCacheType
        let cache: ImageCache
        let extendedData: DiskCacheExtendedData?

        /// Whether this write fills `cache`'s memory layer.
        var storesInMemory: Bool {
            cacheType.includesMemory && image != nil && cache.configuration.shouldCacheImagesInMemory
        }

        /// Whether this write goes to disk.
        var storesOnDisk: Bool { cacheType.includesDisk && (image != nil || data != nil) }
    }

    private(set) var writes: [Write] = []

    /// The plan after a download of `value`; `final` is the image delivered (the transformed
    /// one when `transformed`, else the downloaded one).
    init(download value: ImageLoaderResult, final: Image?, transformed: Bool, request: ImageLoadRequest) {
        let validators = value.response?.validators ?? HTTPCacheValidators()
        let extended = DiskCacheExtendedData(
            originalURL: request.url.absoluteString, contentType: value.response?.contentType,
            eTag: validators.entityTag, lastModified: validators.lastModified)
        let storeType = request.context.storeCacheType ?? .all
        if request.hasDerivedKey {
            add(
                request.context.decodesDerivedImage ? nil : value.image, data: value.data, key: request.originalKey,
                request.context.originalStoreCacheType ?? .disk, request.originalCache, extended)
            if transformed || (request.transformer == nil && final != nil) {
                add(final, data: nil, key: request.finalKey, storeType, request.cache, nil)
            }
        } else {
            add(final, data: value.data, key: request.finalKey, storeType, request.cache, extended)
        }
    }

    /// The plan for an image derived from the cached original.
    init(derived: Image, request: ImageLoadRequest) {
        add(derived, data: nil, key: request.finalKey, request.context.storeCacheType ?? .all, request.cache, nil)
    }

    private mutating func add(
        _ image: Image?, data: Data?, key: String?, _ cacheType: ImageCacheType, _ cache: ImageCache,
        _ extendedData: DiskCacheExtendedData?
    ) {
        guard let key, cacheType != .none else { return }
        writes.append(Write(image: image, data: data, key: key, cacheType: cacheType, cache: cache, extendedData: extendedData))
    }
}
