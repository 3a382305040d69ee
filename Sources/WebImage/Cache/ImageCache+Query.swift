import Foundation
import WebImageCore

extension ImageCache {
    /// Looks for the image under `key` (SPEC ), calling `completion` exactly once.
    ///
    /// 1. Memory (when `cacheType` includes it): a hit completes at once, synchronously on the
    ///    calling thread, unless ``WebImageOptions/queryMemoryData`` asks for the bytes too
    ///    (read on the processing pool, or synchronously with
    ///    ``WebImageOptions/queryMemoryDataSync``).
    /// 2. Disk (when `cacheType` includes it): the bytes are read and decoded on the processing
    ///    pool (synchronously with ``WebImageOptions/queryDiskDataSync``), with the decode
    ///    options of `context` and `options` (thumbnail size, scale, first frame only,
    ///    scale-down). ``WebImageOptions/avoidDecodeImage`` returns the bytes undecoded. The
    ///    image then goes to memory when ``Configuration/shouldCacheImagesInMemory`` (and the
    ///    context's ``WebImageContext/storeCacheType``, if set, includes memory).
    /// 3. A disk entry that is not a decodable image is deleted and reported as a miss (S-8).
    ///
    /// ``WebImageOptions/preloadAllFrames`` needs no work here: decoders return every frame.
    /// With ``WebImageOptions/decodeFirstFrameOnly`` a memory hit on an animation returns its
    /// first frame (sharing the pixels).
    ///
    /// - Returns: a token; ``ImageCacheToken/cancel()`` completes the query at once with a
    ///   cancelled result, skips the decode if it has not started, and writes nothing to memory.
    @discardableResult
    public func queryImage(
        forKey key: String, options: WebImageOptions = [], context: WebImageContext = WebImageContext(),
        cacheType: ImageCacheType = .all,
        completion: @escaping @Sendable (ImageCacheQueryResult) -> Void
    ) -> ImageCacheToken {
        let token = ImageCacheToken(completion: completion)
        query(key, options: options, context: context, cacheType: cacheType, token: token)
        return token
    }

    /// Looks for the image under `key` (SPEC Q-1) — the async form of
    /// ``queryImage(forKey:options:context:cacheType:completion:)``. Cancelling the calling
    /// task cancels the query, which then returns ``ImageCacheQueryResult/cancelled``.
    public func queryImage(
        forKey key: String, options: WebImageOptions = [], context: WebImageContext = WebImageContext(),
        cacheType: ImageCacheType = .all
    ) async -> ImageCacheQueryResult {
        if Task.isCancelled { return .cancelled }
        let token = ImageCacheToken()
        query(key, options: options, context: context, cacheType: cacheType, token: token)
        return await withTaskCancellationHandler {
            await token.result()
        } onCancel: {
            token.cancel()
        }
    }

    /// The query on the calling thread, when `options` make it synchronous
    /// (``WebImageOptions/queryDiskDataSync``, with ``WebImageOptions/queryMemoryDataSync`` when
    /// ``WebImageOptions/queryMemoryData`` asks for the bytes); `nil` for other options.
    func querySynchronously(
        forKey key: String, options: WebImageOptions, context: WebImageContext, cacheType: ImageCacheType
    ) -> ImageCacheQueryResult? {
        guard options.contains(.queryDiskDataSync),
            !options.contains(.queryMemoryData) || options.contains(.queryMemoryDataSync)
        else { return nil }
        let token = ImageCacheToken()
        query(key, options: options, context: context, cacheType: cacheType, token: token)
        return token.takeResultIfFinished()
    }

    /// The query behind both forms: memory at once, disk on the pool (or synchronously with
    /// the `…Sync` options); the result goes to `token`.
    private func query(
        _ key: String, options: WebImageOptions, context: WebImageContext, cacheType: ImageCacheType, token: ImageCacheToken
    ) {
        if cacheType.includesMemory, let cached = memoryCache.image(forKey: key) {
            let image = Self.applyingFrameOptions(cached, options: options)
            guard options.contains(.queryMemoryData) else {
                token.finish(ImageCacheQueryResult(image: image, cacheType: .memory))
                return
            }
            let disk = diskCache
            let readData: @Sendable () -> Void = {
                guard !token.isFinished else { return }
                let data = disk.data(for: key)
                token.finish(ImageCacheQueryResult(image: image, data: data, cacheType: .memory))
            }
            if options.contains(.queryMemoryDataSync) { readData() } else { pool.submit(readData) }
            return
        }
        guard cacheType.includesDisk else {
            token.finish(.miss)
            return
        }
        let work: @Sendable () -> Void = { [self] in
            self.queryDisk(key: key, options: options, context: context, token: token)
        }
        if options.contains(.queryDiskDataSync) { work() } else { pool.submit(work) }
    }

    private func queryDisk(key: String, options: WebImageOptions, context: WebImageContext, token: ImageCacheToken) {
        guard !token.isFinished else { return }
        guard let data = diskCache.data(for: key) else {
            token.finish(.miss)
            return
        }
        if options.contains(.avoidDecodeImage) {
            token.finish(ImageCacheQueryResult(data: data, cacheType: .disk))
            return
        }
        // Cancelled while reading: no decode.
        guard !token.isFinished else { return }
        var decodeOptions = context.decodeOptions(for: options)
        if decodeOptions.scaleFactor == nil { decodeOptions.scaleFactor = Image.scale(fromFileName: key) }
        let coders = context.imageCoders ?? self.coders
        let image: Image
        do {
            image = try PipelineMetrics.timedDecode("disk") { try coders.decode(data, options: decodeOptions) }
        } catch WebImageError.badImageData where context.imagePageIndex == nil {
            // A corrupt entry is never served: delete it and report a miss (S-8). With a page
            // index the error may be about the page (past the end of a sound document): then
            // it is a miss below and the bytes stay.
            diskCache.remove(key)
            token.finish(.miss)
            return
        } catch {
            // Unsupported or too large for these options: a miss, but the bytes may be fine.
            token.finish(.miss)
            return
        }
        let toMemory = configuration.shouldCacheImagesInMemory && (context.storeCacheType?.includesMemory ?? true)
        // A thumbnail decode is not the image stored under `key`: it goes to memory under the
        // thumbnail key (SPEC Q-4), so a later full-size lookup never finds the thumbnail.
        let memoryKey = Self.memoryKey(forDecodedKey: key, context: context)
        token.finish(ImageCacheQueryResult(image: image, data: data, cacheType: .disk)) {
            if toMemory { memoryCache.setImage(image, forKey: memoryKey) }
        }
    }

    /// The memory key of an image decoded from the disk entry `key` under `context`: `key`
    /// itself, or its page and thumbnail key when the context asks for a page or a thumbnail.
    static func memoryKey(forDecodedKey key: String, context: WebImageContext) -> String {
        context.decodedImageKey(for: key)
    }

    /// `image`, or its first frame alone when `decodeFirstFrameOnly` is asked for.
    static func applyingFrameOptions(_ image: Image, options: WebImageOptions) -> Image {
        guard options.contains(.decodeFirstFrameOnly), image.isAnimated else { return image }
        return image.replacing(frames: [image.frames[0]])
    }
}
