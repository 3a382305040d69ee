import Foundation
import WebImageCore

/// A key of ``WebImageContext``: a type that names one context value and its type.
///
/// Each module declares its keys next to the feature that reads them and exposes them as typed
/// properties in an `extension WebImageContext`, so the context grows without a central list:
///
/// ```swift
/// private enum ThumbnailPixelSizeKey: WebImageContextKey { typealias Value = PixelSize }
/// extension WebImageContext {
///     public var thumbnailPixelSize: PixelSize? {
///         get { self[ThumbnailPixelSizeKey.self] }
///         set { self[ThumbnailPixelSizeKey.self] = newValue }
///     }
/// }
/// ```
public protocol WebImageContextKey {
    /// The type of the value stored under this key.
    associatedtype Value: Sendable
}

/// Typed per-request values (SPEC M-5): operation key, custom cache/loader/coders, transformer,
/// decode options, cache types, request/response modifiers, decryptor, cache key filter, cache
/// serializer, callback queue — each a typed property declared by the module that uses it.
public struct WebImageContext: Sendable {
    /// Values by key type. The value under `ObjectIdentifier(K.self)` is always a
    /// `ContextBox<K.Value>`: the subscript is the only writer.
    private var values: [ObjectIdentifier: any AnyObject & Sendable] = [:]

    /// An empty context.
    public init() {}

    /// The value stored under `key`, or `nil`.
    ///
    /// Reading is a dictionary lookup and a downcast known to succeed — no runtime
    /// protocol-conformance search, which matters on the memory-hit path (many lookups per load).
    public subscript<Key: WebImageContextKey>(key: Key.Type) -> Key.Value? {
        get {
            guard let box = values[ObjectIdentifier(key)] else { return nil }
            return unsafeDowncast(box, to: ContextBox<Key.Value>.self).value
        }
        set { values[ObjectIdentifier(key)] = newValue.map { ContextBox($0) } }
    }

    /// Whether no value is set.
    public var isEmpty: Bool { values.isEmpty }

    /// This context with the values of `other` laid over it.
    public func merging(_ other: WebImageContext) -> WebImageContext {
        var result = self
        result.values.merge(other.values) { _, new in new }
        return result
    }
}

/// One context value, boxed so that reading it back needs no existential cast.
private final class ContextBox<Value: Sendable>: Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

private enum OperationKeyKey: WebImageContextKey { typealias Value = String }
private enum ImageScaleFactorKey: WebImageContextKey { typealias Value = Double }
private enum ThumbnailPixelSizeKey: WebImageContextKey { typealias Value = PixelSize }
private enum PreserveAspectRatioKey: WebImageContextKey { typealias Value = Bool }
private enum CodersKey: WebImageContextKey { typealias Value = CodersManager }
private enum QueryCacheTypeKey: WebImageContextKey { typealias Value = ImageCacheType }
private enum StoreCacheTypeKey: WebImageContextKey { typealias Value = ImageCacheType }
private enum OriginalQueryCacheTypeKey: WebImageContextKey { typealias Value = ImageCacheType }
private enum OriginalStoreCacheTypeKey: WebImageContextKey { typealias Value = ImageCacheType }
private enum MaximumLoadDurationKey: WebImageContextKey { typealias Value = Double }
private enum MaximumDecodedBytesKey: WebImageContextKey { typealias Value = Int }
private enum PageIndexKey: WebImageContextKey { typealias Value = Int }

extension WebImageContext {
    /// The key under which a display target registers the load (default: the target's type).
    public var operationKey: String? {
        get { self[OperationKeyKey.self] }
        set { self[OperationKeyKey.self] = newValue }
    }
    /// The image scale to use instead of the one derived from an `@2x`/`@3x` file name.
    public var imageScaleFactor: Double? {
        get { self[ImageScaleFactorKey.self] }
        set { self[ImageScaleFactorKey.self] = newValue }
    }
    /// Decode to fit this size (a thumbnail); it gets its own cache key (SPEC Q-4).
    public var imageThumbnailPixelSize: PixelSize? {
        get { self[ThumbnailPixelSizeKey.self] }
        set { self[ThumbnailPixelSizeKey.self] = newValue }
    }
    /// The page of a multi-page document to decode (PDF; 0 = the first), as
    /// SDWebImagePDFCoder's page option. Like a thumbnail size it changes the decoded image, so
    /// it gets its own cache key (`-Page(N)` before the extension, SPEC Q-4): pages of one URL
    /// are cached apart, over one copy of the document's bytes. `nil` (default): the first page.
    public var imagePageIndex: Int? {
        get { self[PageIndexKey.self] }
        set { self[PageIndexKey.self] = newValue }
    }
    /// With a thumbnail size: keep the aspect ratio (default `true`).
    public var imagePreserveAspectRatio: Bool? {
        get { self[PreserveAspectRatioKey.self] }
        set { self[PreserveAspectRatioKey.self] = newValue }
    }
    /// The coders to decode with instead of `CodersManager.shared`.
    public var imageCoders: CodersManager? {
        get { self[CodersKey.self] }
        set { self[CodersKey.self] = newValue }
    }
    /// Which layers to query for the final image (default `.all`).
    public var queryCacheType: ImageCacheType? {
        get { self[QueryCacheTypeKey.self] }
        set { self[QueryCacheTypeKey.self] = newValue }
    }
    /// Which layers to store the final image in (default `.all`).
    public var storeCacheType: ImageCacheType? {
        get { self[StoreCacheTypeKey.self] }
        set { self[StoreCacheTypeKey.self] = newValue }
    }
    /// Which layers to query for the original (untransformed) image (default `.none`).
    public var originalQueryCacheType: ImageCacheType? {
        get { self[OriginalQueryCacheTypeKey.self] }
        set { self[OriginalQueryCacheTypeKey.self] = newValue }
    }
    /// Which layers to store the original (untransformed) image in (default `.disk` when a
    /// transformer is set, as SDWebImage does).
    public var originalStoreCacheType: ImageCacheType? {
        get { self[OriginalStoreCacheTypeKey.self] }
        set { self[OriginalStoreCacheTypeKey.self] = newValue }
    }

    /// The total deadline of the load in seconds (SPEC R-2): cache query, download, decode and
    /// transform together. When it runs out the load ends with
    /// ``/WebImageCore/WebImageError/timedOut(_:)`` naming
    /// ``/WebImageCore/WebImageError/Deadline/load(seconds:)``, its download is cancelled, and a
    /// decode or transform still running is abandoned (its result is dropped). `nil` (default)
    /// or a value that is not a positive finite number: no load deadline (the downloader's own
    /// deadlines still apply).
    public var maximumLoadDuration: Double? {
        get { self[MaximumLoadDurationKey.self] }
        set { self[MaximumLoadDurationKey.self] = newValue }
    }

    /// The decoded-bytes budget of this load (SPEC R-3): what decoding may allocate for the
    /// image, all frames and composited canvases included. It lowers, never raises,
    /// ``/WebImageCore/DecodeLimits/maxDecodedBytes`` of the decode; over it the load fails
    /// with ``/WebImageCore/WebImageError/imageTooLarge(reason:)`` before pixel memory is
    /// allocated. `nil` (default): the decode limits' own budget.
    public var maximumDecodedBytes: Int? {
        get { self[MaximumDecodedBytesKey.self] }
        set { self[MaximumDecodedBytesKey.self] = newValue }
    }

    /// The decode options these context values and `options` imply.
    public func decodeOptions(for options: WebImageOptions) -> DecodeOptions {
        var decode = DecodeOptions()
        if let budget = maximumDecodedBytes {
            decode.limits.maxDecodedBytes = min(decode.limits.maxDecodedBytes, max(0, budget))
        }
        decode.thumbnailPixelSize = imageThumbnailPixelSize
        decode.pageIndex = imagePageIndex
        decode.preserveAspectRatio = imagePreserveAspectRatio ?? true
        decode.scaleFactor = imageScaleFactor
        decode.firstFrameOnly = options.contains(.decodeFirstFrameOnly)
        decode.scaleDownLargeImages = options.contains(.scaleDownLargeImages)
        return decode
    }

    /// The decode options for an image loaded from `url`: ``decodeOptions(for:)``, with the
    /// scale taken from an `@2x`/`@3x` file name in the cache key (or the URL's path) when the
    /// context sets no ``imageScaleFactor`` (SPEC I-1) — the same rule the disk cache applies,
    /// so one URL gets one scale from the network, a file and the cache.
    public func decodeOptions(for options: WebImageOptions, url: URL) -> DecodeOptions {
        var decode = decodeOptions(for: options)
        if decode.scaleFactor == nil {
            decode.scaleFactor = Image.scale(fromFileName: cacheKey(for: url) ?? url.path)
        }
        return decode
    }
}
