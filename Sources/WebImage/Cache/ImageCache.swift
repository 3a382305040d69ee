import Foundation
import WebImageCodecs
import WebImageCore

/// The memory cache and the disk cache together, with the coders that turn disk bytes into
/// images (SPEC Q-1…Q-5).
///
/// Queries look in memory first, then on disk; a disk hit is decoded on
/// ``/WebImageCore/ProcessingPool/shared`` (never on the caller's thread, except with
/// ``WebImageOptions/queryDiskDataSync``) and then kept in memory. Stores put the image in
/// memory and the original bytes (or an encoding of the image) on disk.
public final class ImageCache: Sendable {
    /// How an ``ImageCache`` behaves.
    public struct Configuration: Sendable {
        /// Put images decoded from disk hits (and stored images) in the memory cache (default `true`).
        public var shouldCacheImagesInMemory: Bool = true
        /// The memory cache's limits.
        public var memory: MemoryCache.Configuration = MemoryCache.Configuration()
        /// The disk cache's limits and layout.
        public var disk: DiskCacheConfiguration = DiskCacheConfiguration()
        /// Options for images encoded for the disk when no original bytes are given.
        public var encodeOptions: EncodeOptions = .default

        /// A configuration; each parameter defaults to the value documented on its property.
        public init(
            shouldCacheImagesInMemory: Bool = true,
            memory: MemoryCache.Configuration = MemoryCache.Configuration(),
            disk: DiskCacheConfiguration = DiskCacheConfiguration(),
            encodeOptions: EncodeOptions = .default
        ) {
            self.shouldCacheImagesInMemory = shouldCacheImagesInMemory
            self.memory = memory
            self.disk = disk
            self.encodeOptions = encodeOptions
        }
    }

    /// The shared cache: namespace `default` under the default root, `CodersManager.shared`.
    public static let shared = ImageCache()

    /// The configuration.
    public let configuration: Configuration
    /// The memory layer.
    public let memoryCache: MemoryCache
    /// The disk layer.
    public let diskCache: DiskCache
    /// The coders used for disk hits and for encoding images without original bytes (a
    /// request's ``WebImageContext/imageCoders`` wins).
    public let coders: CodersManager
    /// Where decoding and encoding run.
    public let pool: ProcessingPool

    /// A cache in namespace `namespace` (default `"default"`) of the default disk root.
    public convenience init(
        namespace: String = "default", configuration: Configuration = Configuration(),
        coders: CodersManager = CodersManager.shared, pool: ProcessingPool = .shared
    ) {
        self.init(
            memoryCache: MemoryCache(configuration: configuration.memory),
            diskCache: DiskCache(namespace: namespace, configuration: configuration.disk),
            configuration: configuration, coders: coders, pool: pool)
    }

    /// A cache whose disk layer lives in `directory`.
    public convenience init(
        directory: URL, configuration: Configuration = Configuration(),
        coders: CodersManager = CodersManager.shared, pool: ProcessingPool = .shared
    ) {
        self.init(
            memoryCache: MemoryCache(configuration: configuration.memory),
            diskCache: DiskCache(directory: directory, configuration: configuration.disk),
            configuration: configuration, coders: coders, pool: pool)
    }

    /// A cache over existing layers.
    public init(
        memoryCache: MemoryCache, diskCache: DiskCache, configuration: Configuration = Configuration(),
        coders: CodersManager = CodersManager.shared, pool: ProcessingPool = .shared
    ) {
        self.memoryCache = memoryCache
        self.diskCache = diskCache
        self.configuration = configuration
        self.coders = coders
        self.pool = pool
    }

    // MARK: storing

    /// Stores `image` and/or `imageData` under `key` in the layers of `cacheType` (SPEC Q-3),
    /// and returns once the disk write (if any) is done.
    ///
    /// Memory gets `image`. Disk gets, in order of preference: what the context's
    /// ``WebImageContext/cacheSerializer`` returns (when set and an image is given), the
    /// original `imageData`, or `image` encoded in its own format (PNG when it has alpha and no
    /// encodable format, else JPEG). Encoding runs on the processing pool.
    /// - Throws: ``/WebImageCore/WebImageError/encodingFailed(reason:)`` or ``/WebImageCore/WebImageError/cacheIO(reason:)``.
    public func store(
        _ image: Image?, imageData: Data?, forKey key: String, cacheType: ImageCacheType = .all,
        context: WebImageContext = WebImageContext(), extendedData: DiskCacheExtendedData? = nil
    ) async throws {
        if cacheType.includesMemory, let image {
            memoryCache.setImage(image, forKey: key)
        }
        guard cacheType.includesDisk else { return }
        let bytes: Data?
        if let serializer = context.cacheSerializer, let image {
            bytes = try await pool.run { serializer.cacheData(for: image, originalData: imageData, key: key) }
        } else if let imageData {
            bytes = imageData
        } else if let image {
            let coders = context.imageCoders ?? self.coders
            let options = configuration.encodeOptions
            bytes = try await pool.run { try Self.encodeForDisk(image, coders: coders, options: options) }
        } else {
            bytes = nil
        }
        guard let bytes else { return }
        try await diskCache.storeAndWait(bytes, forKey: key, extendedData: extendedData)
    }

    /// ``store(_:imageData:forKey:cacheType:context:extendedData:)`` with a completion handler,
    /// called once when the store is done with `nil` or the error.
    public func store(
        _ image: Image?, imageData: Data?, forKey key: String, cacheType: ImageCacheType = .all,
        context: WebImageContext = WebImageContext(), extendedData: DiskCacheExtendedData? = nil,
        completion: (@Sendable ((any Error)?) -> Void)? = nil
    ) {
        Task {
            do {
                try await store(
                    image, imageData: imageData, forKey: key, cacheType: cacheType, context: context,
                    extendedData: extendedData)
                completion?(nil)
            } catch {
                completion?(error)
            }
        }
    }

    /// The bytes an image without original data is stored as: its own format when a coder
    /// encodes it, else PNG when it has alpha, else JPEG. When no coder writes that format,
    /// the next one that can keep the image goes (alpha: WebP lossless, then JPEG).
    static func encodeForDisk(_ image: Image, coders: CodersManager, options: EncodeOptions) throws -> Data {
        let candidates: [ImageFormat] =
            image.hasAlpha ? [image.format, .png, .webp, .jpeg] : [image.format, .jpeg, .png, .webp]
        guard let format = candidates.first(where: { $0 != .unknown && coders.canEncode($0) }) else {
            throw WebImageError.encodingFailed(reason: "no registered coder encodes \(image.format), PNG, WebP or JPEG")
        }
        var options = options
        if format == .webp && image.hasAlpha && format != image.format { options.lossless = true }
        return try coders.encode(image, format: format, options: options)
    }

    // MARK: inspecting and removing

    /// Where an image for `key` is: `.memory` (checked first), `.disk`, or `.none`.
    public func containsImage(forKey key: String, cacheType: ImageCacheType = .all) -> ImageCacheType {
        if cacheType.includesMemory, memoryCache.containsImage(forKey: key) { return .memory }
        if cacheType.includesDisk, diskCache.contains(key) { return .disk }
        return .none
    }

    /// The image for `key` in the memory cache, synchronously.
    public func imageFromMemoryCache(forKey key: String) -> Image? {
        memoryCache.image(forKey: key)
    }

    /// Removes the image for `key` from memory and, when `fromDisk` (default), from disk.
    public func removeImage(forKey key: String, fromDisk: Bool = true) {
        memoryCache.removeImage(forKey: key)
        if fromDisk { diskCache.remove(key) }
    }

    /// Empties the memory cache.
    public func clearMemory() {
        memoryCache.removeAll()
    }

    /// Empties the disk cache (on the processing pool).
    public func clearDisk() async {
        let disk = diskCache
        _ = try? await pool.run { disk.removeAll() }
    }

    /// Empties the layers of `cacheType`.
    public func clear(_ cacheType: ImageCacheType = .all) async {
        if cacheType.includesMemory { clearMemory() }
        if cacheType.includesDisk { await clearDisk() }
    }

    /// Removes expired disk entries and trims the disk to its size limit; returns how many
    /// entries were removed.
    @discardableResult
    public func deleteOldFiles() async -> Int {
        let disk = diskCache
        return (try? await pool.run { disk.removeExpiredData() }) ?? 0
    }

    /// Total bytes on disk.
    public var totalDiskSize: Int { diskCache.totalSize }
    /// Number of disk entries.
    public var totalDiskCount: Int { diskCache.totalCount }

    /// The file `key` is (or would be) stored in.
    public func cachePath(for key: String) -> URL { diskCache.path(for: key) }
}
