import Dispatch
import Foundation
import Synchronization
import Testing
@testable import WebImage

@Suite("Image cache (Q-1…Q-5, S-8)")
struct CacheImageCacheTests {
    /// A cache in a temporary directory with the raw test coder.
    private struct Fixture {
        let directory = CacheFixtures.temporaryDirectory()
        let coder = RawTestCoder()
        let pool: ProcessingPool
        let cache: ImageCache

        init(shouldCacheImagesInMemory: Bool = true, poolWidth: Int = 2) {
            pool = ProcessingPool(name: "cache-tests", width: poolWidth)
            var configuration = ImageCache.Configuration(shouldCacheImagesInMemory: shouldCacheImagesInMemory)
            configuration.disk = CacheFixtures.diskConfiguration()
            cache = ImageCache(
                directory: directory, configuration: configuration, coders: CodersManager(coders: [coder]), pool: pool)
        }

        func cleanUp() { CacheFixtures.remove(directory) }
    }

    /// Calls `queryImage` and returns how often and with what the completion ran.
    private final class Recorder: Sendable {
        let calls = Mutex<[ImageCacheQueryResult]>([])
        func record(_ result: ImageCacheQueryResult) { calls.withLock { $0.append(result) } }
        var count: Int { calls.withLock { $0.count } }
        var last: ImageCacheQueryResult? { calls.withLock { $0.last } }
    }

    /// Waits until `condition` holds; a hang guard of 60 s, not a timing assertion.
    private func waitUntil(_ condition: () -> Bool) async {
        let deadline = ContinuousClock.now + .seconds(60)
        while !condition(), ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
    }

    @Test("Given an image in memory, when queried, then it returns at once from memory without bytes")
    func memoryHit() async {
        let f = Fixture()
        defer { f.cleanUp() }
        let image = CacheFixtures.image()
        f.cache.memoryCache.setImage(image, forKey: "k")
        let recorder = Recorder()
        let token = f.cache.queryImage(forKey: "k") { recorder.record($0) }
        #expect(token.isFinished)
        #expect(recorder.count == 1)
        #expect(recorder.last?.image === image)
        #expect(recorder.last?.data == nil)
        #expect(recorder.last?.cacheType == .memory)
    }

    @Test("Given an image in memory and on disk, when queryMemoryData is asked, then the bytes come too (sync and async)")
    func memoryHitWithData() async throws {
        let f = Fixture()
        defer { f.cleanUp() }
        let image = CacheFixtures.image()
        let bytes = RawTestCoder.encode(image.pixels)
        try await f.cache.store(image, imageData: bytes, forKey: "k")
        let recorder = Recorder()
        f.cache.queryImage(forKey: "k", options: [.queryMemoryData, .queryMemoryDataSync]) { recorder.record($0) }
        #expect(recorder.count == 1)
        #expect(recorder.last?.data == bytes)
        #expect(recorder.last?.cacheType == .memory)
        let async = await f.cache.queryImage(forKey: "k", options: [.queryMemoryData])
        #expect(async.image === image)
        #expect(async.data == bytes)
        #expect(f.coder.decodeCount.load(ordering: .relaxed) == 0)
    }

    @Test("Given bytes only on disk, when queried, then they are decoded off the caller and put in memory")
    func diskHit() async throws {
        let f = Fixture()
        defer { f.cleanUp() }
        let bytes = RawTestCoder.encode(CacheFixtures.image(width: 8, height: 6).pixels)
        try await f.cache.diskCache.storeAndWait(bytes, forKey: "https://x.org/a@2x.raw")
        let result = await f.cache.queryImage(forKey: "https://x.org/a@2x.raw")
        #expect(result.cacheType == .disk)
        #expect(result.data == bytes)
        #expect(result.image?.pixelSize == PixelSize(width: 8, height: 6))
        #expect(result.image?.scale == 2)
        #expect(f.cache.memoryCache.image(forKey: "https://x.org/a@2x.raw") === result.image)
        let again = await f.cache.queryImage(forKey: "https://x.org/a@2x.raw")
        #expect(again.cacheType == .memory)
        #expect(f.coder.decodeCount.load(ordering: .relaxed) == 1)
    }

    @Test("Given shouldCacheImagesInMemory off, when a disk hit is decoded, then memory stays empty")
    func diskHitNotCachedInMemory() async throws {
        let f = Fixture(shouldCacheImagesInMemory: false)
        defer { f.cleanUp() }
        try await f.cache.diskCache.storeAndWait(RawTestCoder.encode(CacheFixtures.image().pixels), forKey: "k")
        let result = await f.cache.queryImage(forKey: "k")
        #expect(result.cacheType == .disk && result.image != nil)
        #expect(f.cache.memoryCache.count == 0)
    }

    @Test("Given avoidDecodeImage, when a disk hit is found, then only the bytes come back")
    func avoidDecode() async throws {
        let f = Fixture()
        defer { f.cleanUp() }
        let bytes = RawTestCoder.encode(CacheFixtures.image().pixels)
        try await f.cache.diskCache.storeAndWait(bytes, forKey: "k")
        let result = await f.cache.queryImage(forKey: "k", options: [.avoidDecodeImage])
        #expect(result.image == nil)
        #expect(result.data == bytes)
        #expect(result.cacheType == .disk)
        #expect(f.coder.decodeCount.load(ordering: .relaxed) == 0)
        #expect(f.cache.memoryCache.count == 0)
    }

    @Test("Given queryDiskDataSync, when queried, then the completion runs before the call returns")
    func diskSync() async throws {
        let f = Fixture()
        defer { f.cleanUp() }
        try await f.cache.diskCache.storeAndWait(RawTestCoder.encode(CacheFixtures.image().pixels), forKey: "k")
        let recorder = Recorder()
        let token = f.cache.queryImage(forKey: "k", options: [.queryDiskDataSync]) { recorder.record($0) }
        #expect(token.isFinished)
        #expect(recorder.count == 1)
        #expect(recorder.last?.cacheType == .disk)
    }

    @Test("Given a thumbnail size in the context, when decoded from disk, then the image fits it")
    func thumbnailDecode() async throws {
        let f = Fixture()
        defer { f.cleanUp() }
        try await f.cache.diskCache.storeAndWait(RawTestCoder.encode(CacheFixtures.image(width: 40, height: 20).pixels), forKey: "k")
        var context = WebImageContext()
        context.imageThumbnailPixelSize = PixelSize(width: 10, height: 10)
        let result = await f.cache.queryImage(forKey: "k", context: context)
        #expect(result.image?.pixelSize == PixelSize(width: 10, height: 5))
    }

    @Test("Given an animated image in memory, when decodeFirstFrameOnly, then the first frame alone is returned")
    func firstFrameOnly() async {
        let f = Fixture()
        defer { f.cleanUp() }
        let a = PixelBuffer(width: 2, height: 2, bytes: [UInt8](repeating: 1, count: 16))
        let b = PixelBuffer(width: 2, height: 2, bytes: [UInt8](repeating: 2, count: 16))
        let animated = Image(frames: [ImageFrame(pixels: a, duration: 0.1), ImageFrame(pixels: b, duration: 0.1)])
        f.cache.memoryCache.setImage(animated, forKey: "anim")
        let result = await f.cache.queryImage(forKey: "anim", options: [.decodeFirstFrameOnly])
        #expect(result.image?.frames.count == 1)
        #expect(result.image?.pixels === a)
        let full = await f.cache.queryImage(forKey: "anim", options: [.preloadAllFrames])
        #expect(full.image === animated)
    }

    @Test("Given cache types, when querying only some layers, then the others are not consulted")
    func queryCacheTypes() async throws {
        let f = Fixture()
        defer { f.cleanUp() }
        try await f.cache.diskCache.storeAndWait(RawTestCoder.encode(CacheFixtures.image().pixels), forKey: "disk")
        f.cache.memoryCache.setImage(CacheFixtures.image(), forKey: "mem")
        #expect(await f.cache.queryImage(forKey: "disk", cacheType: .memory).cacheType == .none)
        #expect(await f.cache.queryImage(forKey: "mem", cacheType: .disk).cacheType == .none)
        #expect(await f.cache.queryImage(forKey: "disk", cacheType: .none).cacheType == .none)
        #expect(await f.cache.queryImage(forKey: "absent").cacheType == .none)
    }

    @Test("Given a queued disk query, when cancelled, then the completion runs once, nothing is decoded or cached")
    func cancellation() async throws {
        let f = Fixture(poolWidth: 1)
        defer { f.cleanUp() }
        try await f.cache.diskCache.storeAndWait(RawTestCoder.encode(CacheFixtures.image().pixels), forKey: "k")
        let gate = DispatchSemaphore(value: 0)
        f.pool.submit { gate.wait() }
        let recorder = Recorder()
        let token = f.cache.queryImage(forKey: "k") { recorder.record($0) }
        #expect(recorder.count == 0)
        token.cancel()
        token.cancel()
        #expect(recorder.count == 1)
        #expect(recorder.last?.isCancelled == true)
        gate.signal()
        _ = try await f.pool.run { 0 }
        #expect(recorder.count == 1)
        #expect(f.coder.decodeCount.load(ordering: .relaxed) == 0)
        #expect(f.cache.memoryCache.count == 0)
    }

    @Test("Given a finished query, when cancelled afterwards, then the completion does not run again")
    func cancelAfterFinish() async throws {
        let f = Fixture()
        defer { f.cleanUp() }
        try await f.cache.diskCache.storeAndWait(RawTestCoder.encode(CacheFixtures.image().pixels), forKey: "k")
        let recorder = Recorder()
        let token = f.cache.queryImage(forKey: "k") { recorder.record($0) }
        await waitUntil { recorder.count == 1 }
        token.cancel()
        #expect(recorder.count == 1)
        #expect(recorder.last?.isCancelled == false)
        #expect(recorder.last?.cacheType == .disk)
    }

    @Test("Given an async query, when its task is cancelled, then it returns a cancelled result and caches nothing")
    func asyncCancellation() async throws {
        let f = Fixture(poolWidth: 1)
        defer { f.cleanUp() }
        try await f.cache.diskCache.storeAndWait(RawTestCoder.encode(CacheFixtures.image().pixels), forKey: "k")
        let gate = DispatchSemaphore(value: 0)
        f.pool.submit { gate.wait() }
        let cache = f.cache
        let task = Task { await cache.queryImage(forKey: "k") }
        // Cancelled once the query is queued behind the gate's job on the one pool thread.
        await waitUntil { f.pool.runningCount + f.pool.queuedCount == 2 }
        #expect(f.pool.queuedCount == 1)
        task.cancel()
        let result = await task.value
        gate.signal()
        _ = try await f.pool.run { 0 }
        #expect(result.isCancelled)
        #expect(f.cache.memoryCache.count == 0)
        #expect(f.coder.decodeCount.load(ordering: .relaxed) == 0)
    }

    @Test("Given a corrupt disk entry, when queried, then it is a miss and the entry is deleted (S-8)")
    func corruptEntry() async throws {
        let f = Fixture()
        defer { f.cleanUp() }
        var bytes = RawTestCoder.encode(CacheFixtures.image().pixels)
        bytes.removeLast(5)
        try await f.cache.diskCache.storeAndWait(bytes, forKey: "k")
        let result = await f.cache.queryImage(forKey: "k")
        #expect(result.cacheType == .none && result.image == nil)
        f.cache.diskCache.flush()
        #expect(!f.cache.diskCache.contains("k"))
        #expect(f.cache.containsImage(forKey: "k") == .none)
        #expect(f.cache.memoryCache.count == 0)
    }

    @Test("Given store calls, then memory gets the image and disk the original, encoded or serialized bytes")
    func storeVariants() async throws {
        let f = Fixture()
        defer { f.cleanUp() }
        let image = CacheFixtures.image(width: 3, height: 3)
        let original = RawTestCoder.encode(image.pixels) + Data()
        // Original bytes win over encoding.
        try await f.cache.store(image, imageData: original, forKey: "orig")
        #expect(f.cache.diskCache.data(for: "orig") == original)
        #expect(f.coder.encodeCount.load(ordering: .relaxed) == 0)
        // No bytes: the image is encoded.
        try await f.cache.store(image, imageData: nil, forKey: "enc", cacheType: .disk)
        #expect(f.coder.encodeCount.load(ordering: .relaxed) == 1)
        #expect(f.cache.diskCache.data(for: "enc") == RawTestCoder.encode(image.pixels))
        #expect(f.cache.containsImage(forKey: "enc") == .disk)
        // A serializer decides.
        var context = WebImageContext()
        context.cacheSerializer = CacheSerializerBlock { _, _, key in Data(key.utf8) }
        try await f.cache.store(image, imageData: original, forKey: "ser", context: context)
        #expect(f.cache.diskCache.data(for: "ser") == Data("ser".utf8))
        context.cacheSerializer = CacheSerializerBlock { _, _, _ in nil }
        try await f.cache.store(image, imageData: original, forKey: "none", cacheType: .all, context: context)
        #expect(f.cache.containsImage(forKey: "none") == .memory)
        #expect(!f.cache.diskCache.contains("none"))
        // Memory only.
        try await f.cache.store(image, imageData: original, forKey: "mem", cacheType: .memory)
        #expect(f.cache.containsImage(forKey: "mem") == .memory)
        #expect(!f.cache.diskCache.contains("mem"))
        // Completion form.
        let done = Mutex<Int>(0)
        f.cache.store(image, imageData: original, forKey: "cb") { error in
            if error == nil { done.withLock { $0 += 1 } }
        }
        await waitUntil { done.withLock { $0 } == 1 }
        #expect(done.withLock { $0 } == 1)
        #expect(f.cache.diskCache.data(for: "cb") == original)
    }

    @Test("Given an image no coder encodes, when stored without bytes, then the error is reported and disk stays empty")
    func storeEncodingFailure() async {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        var configuration = ImageCache.Configuration()
        configuration.disk = CacheFixtures.diskConfiguration()
        let cache = ImageCache(directory: dir, configuration: configuration, coders: CodersManager(coders: []))
        await #expect(throws: WebImageError.self) {
            try await cache.store(CacheFixtures.image(), imageData: nil, forKey: "k")
        }
        #expect(cache.containsImage(forKey: "k") == .memory)
        #expect(!cache.diskCache.contains("k"))
    }

    @Test("Given entries, when removed and cleared per layer, then containsImage follows")
    func removeAndClear() async throws {
        let f = Fixture()
        defer { f.cleanUp() }
        let image = CacheFixtures.image()
        let bytes = RawTestCoder.encode(image.pixels)
        try await f.cache.store(image, imageData: bytes, forKey: "a")
        try await f.cache.store(image, imageData: bytes, forKey: "b")
        #expect(f.cache.containsImage(forKey: "a") == .memory)
        f.cache.removeImage(forKey: "a", fromDisk: false)
        #expect(f.cache.containsImage(forKey: "a") == .disk)
        f.cache.removeImage(forKey: "a")
        #expect(f.cache.containsImage(forKey: "a") == .none)
        #expect(f.cache.totalDiskCount == 1)
        #expect(f.cache.totalDiskSize == bytes.count)
        #expect(f.cache.cachePath(for: "b") == f.cache.diskCache.path(for: "b"))
        f.cache.clearMemory()
        #expect(f.cache.containsImage(forKey: "b") == .disk)
        #expect(await f.cache.deleteOldFiles() == 0)
        await f.cache.clearDisk()
        #expect(f.cache.containsImage(forKey: "b") == .none)
        #expect(f.cache.totalDiskCount == 0)
    }

    @Test("Given keys and transformer keys, then transformed and thumbnail keys are inserted before the extension")
    func transformedKeys() {
        #expect(ImageCache.cacheKey(for: "https://x.org/a/b.png?v=1", transformerKey: "Resize") == "https://x.org/a/b-Resize.png?v=1")
        #expect(ImageCache.cacheKey(for: "https://x.org/a/b", transformerKey: "T") == "https://x.org/a/b-T")
        #expect(ImageCache.cacheKey(for: "https://x.org/a.b/c?x=1.png", transformerKey: "T") == "https://x.org/a.b/c-T?x=1.png")
        #expect(ImageCache.cacheKey(for: "/tmp/photo.jpg", transformerKey: "Blur(2)") == "/tmp/photo-Blur(2).jpg")
        #expect(ImageCache.cacheKey(for: "plain", transformerKey: "T") == "plain-T")
        #expect(ImageCache.cacheKey(for: ".png", transformerKey: "T") == ".png-T")
        #expect(ImageCache.cacheKey(for: "k", transformerKey: "") == "k")
        #expect(
            ImageCache.thumbnailCacheKey(
                for: "https://x.org/a.jpg", thumbnailPixelSize: PixelSize(width: 100, height: 50), preserveAspectRatio: true)
                == "https://x.org/a-Thumbnail({100,50},1).jpg")
        #expect(
            ImageCache.thumbnailCacheKey(for: "k", thumbnailPixelSize: PixelSize(width: 1, height: 2), preserveAspectRatio: false)
                == "k-Thumbnail({1,2},0)")
        let original = "https://x.org/a.png"
        #expect(ImageCache.cacheKey(for: original, transformerKey: "T") != original)
    }
}

@Suite("Image cache with the built-in coders")
struct CacheBuiltInCodersTests {
    @Test("Given an opaque image without bytes, when stored and queried from disk, then a built-in encoding round-trips")
    func builtInRoundTrip() async throws {
        let dir = CacheFixtures.temporaryDirectory()
        defer { CacheFixtures.remove(dir) }
        var configuration = ImageCache.Configuration()
        configuration.disk = CacheFixtures.diskConfiguration()
        let cache = ImageCache(directory: dir, configuration: configuration)
        let pixels = PixelBuffer.make(width: 16, height: 8) { buffer in
            for i in stride(from: 0, to: buffer.count, by: 4) {
                buffer[i] = UInt8(i % 251)
                buffer[i + 1] = 90
                buffer[i + 2] = 200
                buffer[i + 3] = 255
            }
        }
        let opaque = Image(pixels: pixels, hasAlpha: false)
        try await cache.store(opaque, imageData: nil, forKey: "opaque", cacheType: .disk)
        let stored = try #require(cache.diskCache.data(for: "opaque"))
        #expect(ImageFormat.detect(stored) == .jpeg)
        let result = await cache.queryImage(forKey: "opaque")
        #expect(result.cacheType == .disk)
        #expect(result.image?.pixelSize == PixelSize(width: 16, height: 8))
        let translucent = Image(pixels: pixels, hasAlpha: true)
        try await cache.store(translucent, imageData: nil, forKey: "alpha", cacheType: .disk)
        let alphaBytes = try #require(cache.diskCache.data(for: "alpha"))
        #expect([ImageFormat.png, .webp].contains(ImageFormat.detect(alphaBytes)))
        #expect(await cache.queryImage(forKey: "alpha").image?.pixelSize == PixelSize(width: 16, height: 8))
    }
}
