import Foundation
import WebImageCore

/// Decides the bytes an image is stored as on disk (SPEC Q-3, M-5 "cache serializer").
///
/// Set one as ``WebImageContext/cacheSerializer`` to store, for example, a re-encoded smaller
/// copy instead of the original download, or to skip the disk for some images.
public protocol CacheSerializer: Sendable {
    /// The bytes to store for `image` under `key`; `originalData` is the downloaded bytes when
    /// known. Return `nil` to store nothing on disk.
    func cacheData(for image: Image, originalData: Data?, key: String) -> Data?
}

/// A ``CacheSerializer`` made from a closure.
public struct CacheSerializerBlock: CacheSerializer {
    private let body: @Sendable (Image, Data?, String) -> Data?

    /// A serializer that calls `body(image, originalData, key)`.
    public init(_ body: @escaping @Sendable (Image, Data?, String) -> Data?) {
        self.body = body
    }

    public func cacheData(for image: Image, originalData: Data?, key: String) -> Data? {
        body(image, originalData, key)
    }
}

private enum CacheSerializerKey: WebImageContextKey { typealias Value = any CacheSerializer }
private enum ImageCacheKey: WebImageContextKey { typealias Value = ImageCache }
private enum OriginalImageCacheKey: WebImageContextKey { typealias Value = ImageCache }

extension WebImageContext {
    /// Turns images into the bytes stored on disk instead of the original data or the default
    /// encoding (SPEC Q-3).
    public var cacheSerializer: (any CacheSerializer)? {
        get { self[CacheSerializerKey.self] }
        set { self[CacheSerializerKey.self] = newValue }
    }

    /// The image cache to use instead of the manager's.
    public var imageCache: ImageCache? {
        get { self[ImageCacheKey.self] }
        set { self[ImageCacheKey.self] = newValue }
    }

    /// The cache the *original* of a thumbnailed or transformed image goes to and is queried
    /// from (SDWebImage's `originalImageCache`); `nil` (default) uses the load's cache
    /// (``imageCache`` or the manager's). The derived image itself always uses the load's
    /// cache; a load with neither thumbnail nor transformer ignores this value.
    public var originalImageCache: ImageCache? {
        get { self[OriginalImageCacheKey.self] }
        set { self[OriginalImageCacheKey.self] = newValue }
    }
}
