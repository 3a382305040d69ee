import Dispatch
import Foundation
import NIOCore
import Synchronization
import Testing
import WebImage
import WebImageTesting

/// SPEC R-2: the total deadline of a download and of a load, beside the idle timeout.
@Suite("Deadlines: download total, load total")
struct DeadlineTests {
    /// A response head, then a body of `count` bytes sent one byte per `interval`.
    static func drip(count: Int, interval: TimeAmount) -> RawResponseServer.Script {
        let head = Array("HTTP/1.1 200 OK\r\nContent-Type: image/png\r\nContent-Length: \(count)\r\n\r\n".utf8)
        // The head goes out as the first piece; then one body byte a piece.
        var bytes = head
        bytes += [UInt8](repeating: 0x41, count: count)
        return RawResponseServer.Script(bytes: bytes, pieceSize: 1, pieceInterval: interval)
    }

    @Test("Given a server dripping one byte a second (never idle for the 10 s timeout), then the download ends at its 2 s total deadline with timedOut(.download), long before the 120 s drip would finish")
    func slowDripEndsAtTotalDeadline() async throws {
        let server = RawResponseServer()
        try await server.start()
        // The head is ~70 bytes, so the whole response takes ~190 pieces × 1 s ≈ 190 s.
        server.script("/drip", Self.drip(count: 120, interval: .seconds(1)))
        var configuration = testDownloaderConfiguration()
        configuration.downloadTimeout = 10
        configuration.maximumDownloadDuration = 2
        let downloader = ImageDownloader(configuration: configuration)
        let start = ContinuousClock.now
        let result = await loadFinal(downloader, server.url("/drip"))
        let elapsed = start.duration(to: .now)
        try await downloader.shutdown()
        await server.shutdown()
        guard case .failure(let error) = result else {
            Issue.record("the drip download succeeded")
            return
        }
        #expect(error.deadline == .download(seconds: 2), "got \(error)")
        #expect(error.description.contains("total deadline of 2 s"))
        #expect(!FailedURLList.shouldBlock(error), "a deadline is transient")
        // Generous: the deadline is 2 s, the drip ~190 s. Only a missing deadline fails this.
        #expect(elapsed < .seconds(60), "ended after \(elapsed)")
    }

    @Test("Given a server that sends nothing after the head, then the idle timeout ends the download with timedOut(.idle)")
    func idleTimeoutIsNamed() async throws {
        let server = RawResponseServer()
        try await server.start()
        let head = Array("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n".utf8)
        server.script("/stall", RawResponseServer.Script(bytes: head, keepsConnection: true))
        var configuration = testDownloaderConfiguration()
        configuration.downloadTimeout = 0.5
        configuration.maximumDownloadDuration = 60
        let downloader = ImageDownloader(configuration: configuration)
        let result = await loadFinal(downloader, server.url("/stall"))
        try await downloader.shutdown()
        await server.shutdown()
        guard case .failure(let error) = result else {
            Issue.record("the stalled download succeeded")
            return
        }
        #expect(error.deadline == .idle(seconds: 0.5), "got \(error)")
    }

    @Test("Given a per-load deadline and a decode held at a gate, then the load ends with timedOut(.load) before the decode finishes")
    func loadDeadlineEndsGatedDecode() async throws {
        let coder = GatedTestCoder()
        let coders = CodersManager(coders: [coder])
        var configuration = testDownloaderConfiguration()
        configuration.coders = coders
        // A pool of its own: the held decode must not take a thread of the shared pool that
        // other suites' decodes run on.
        configuration.processingPool = ProcessingPool(name: "test.gated-decode", width: 1)
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            server.route("/gated", .ok(GatedTestCoder.payload))
            let (manager, _) = ManagerFixtures.manager(loader: downloader)
            var context = WebImageContext()
            context.imageCoders = coders
            // Long enough for a loopback download of 10 bytes to reach the decode on a normal
            // machine; on a very busy one the deadline may end the load during the download,
            // which is still a load ended by its deadline before its decode finished.
            context.maximumLoadDuration = 2
            let outcome = Recorder<Result<ImageResult, WebImageError>>()
            manager.loadImage(with: server.url("/gated"), options: [.fromLoaderOnly], context: context) { outcome.append($0) }
            // Hang guard only: the decode never finishes before the gate opens (after the load
            // ended), so the only way for the load to end is its deadline.
            let ended = await eventually(within: 60) { outcome.count == 1 }
            let decodeFinished = coder.finishedCount
            coder.open()
            #expect(ended)
            #expect(decodeFinished == 0, "the load ended before its decode finished")
            guard case .failure(let error)? = outcome.values.first else {
                Issue.record("the gated load did not fail: \(String(describing: outcome.values.first))")
                return
            }
            #expect(error.deadline == .load(seconds: 2), "got \(error)")
            #expect(error.description.contains("decode and transform"))
            #expect(!manager.failedURLs.contains(server.url("/gated")))
        }
    }
}

/// A coder for bytes starting with `GATE` whose decode waits until ``open()`` (60 s hang guard)
/// and then returns a 1×1 image.
final class GatedTestCoder: ImageCoder {
    static let payload = Data("GATE-image".utf8)
    private let gate = DispatchSemaphore(value: 0)
    private let state = Mutex((started: 0, finished: 0, open: false))

    var startedCount: Int { state.withLock { $0.started } }
    var finishedCount: Int { state.withLock { $0.finished } }
    var isOpen: Bool { state.withLock { $0.open } }

    func open() {
        state.withLock { $0.open = true }
        gate.signal()
    }

    func canDecode(_ data: Data) -> Bool { data.starts(with: Data("GATE".utf8)) }

    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        state.withLock { $0.started += 1 }
        _ = gate.wait(timeout: .now() + 60)
        state.withLock { $0.finished += 1 }
        return Image(pixels: PixelBuffer(width: 1, height: 1, bytes: [0, 0, 0, 255]), format: .unknown, hasAlpha: false)
    }
}

extension WebImageError {
    /// The deadline of a `timedOut` error.
    var deadline: Deadline? {
        if case .timedOut(let deadline) = self { return deadline }
        return nil
    }
}

/// SPEC R-4 on the downloader: a compressed body over the size limit says so.
@Suite("Honest download errors (R-4)")
struct HonestDownloadErrorTests {
    /// A gzip member holding `count` zero bytes in one stored deflate block.
    static func gzipOfZeros(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF]
        bytes += [0x01, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
        bytes += [UInt8](repeating: 0, count: count)
        var crc: UInt32 = 0xFFFF_FFFF
        for _ in 0..<count {
            crc ^= 0
            for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        let size = UInt32(count)
        for value in [crc, size] { bytes += (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        return bytes
    }

    @Test("Given a gzip body that expands past maximumResponseSize, then the error says the compressed body is over the limit")
    func gzipOverLimit() async throws {
        let server = RawResponseServer()
        try await server.start()
        let body = Self.gzipOfZeros(60_000)
        let head = Array("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nConnection: close\r\n\r\n".utf8)
        server.script("/bomb", RawResponseServer.Script(bytes: head + body))
        var configuration = testDownloaderConfiguration()
        configuration.maximumResponseSize = 1_000
        let downloader = ImageDownloader(configuration: configuration)
        let result = await loadFinal(downloader, server.url("/bomb"))
        try await downloader.shutdown()
        await server.shutdown()
        guard case .failure(let error) = result else {
            Issue.record("the gzip bomb loaded")
            return
        }
        #expect(error.code == "decompressedResponseTooLarge", "got \(error)")
        #expect(
            error.description == "the server's gzip-compressed body expands to more than the response size limit of 1000 bytes",
            "got \(error.description)")
    }
}

/// SPEC R-3 through the pipeline: the per-load decoded-bytes budget (a context value).
@Suite("Per-load decoded-bytes budget (R-3)")
struct LoadBudgetTests {
    /// A 64×64 still GIF (16 KiB decoded) as a data: URL.
    static let gifURL: URL = {
        var bytes: [UInt8] = Array("GIF89a".utf8) + [64, 0, 64, 0, 0x80, 0, 0, 0, 0, 0, 255, 255, 255]
        bytes += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0x02, 0x02, 0x44, 0x01, 0x00, 0x3B]
        return URL(string: "data:image/gif;base64," + Data(bytes).base64EncodedString())!
    }()

    @Test("Given maximumDecodedBytes, then it lowers the decode budget and never raises it")
    func contextLowersBudget() {
        var context = WebImageContext()
        context.maximumDecodedBytes = 1_000
        #expect(context.decodeOptions(for: []).limits.maxDecodedBytes == 1_000)
        context.maximumDecodedBytes = Int.max
        #expect(context.decodeOptions(for: []).limits.maxDecodedBytes == DecodeLimits.default.maxDecodedBytes)
    }

    @Test("Given a load whose budget is below the image's decoded size, then it fails with imageTooLarge before decoding; with room it loads")
    func loadOverBudget() async throws {
        let loader = LocalImageLoader()
        var tight = WebImageContext()
        tight.maximumDecodedBytes = 64 * 64 * 4 - 1
        let refused = await loadFinal(loader, Self.gifURL, context: tight)
        guard case .failure(.imageTooLarge(let reason)) = refused else {
            Issue.record("expected imageTooLarge, got \(refused)")
            return
        }
        #expect(reason.contains("decoding a 64x64 image needs 16 KiB"), "\(reason)")
        var roomy = WebImageContext()
        roomy.maximumDecodedBytes = 1024 * 1024
        let loaded = await loadFinal(loader, Self.gifURL, context: roomy)
        #expect((try? loaded.get().image?.width) == 64)
    }
}

@Suite("Per-load budget counts the transformer's output (R-3)")
struct TransformBudgetTests {
    @Test("Given a 64×64 image enlarged to 200×200 by the transformer, when the load's budget holds the decode but not the output, then the load fails with imageTooLarge naming the transform; with room it loads")
    func transformOutputCounted() async throws {
        let (manager, cache) = ManagerFixtures.manager(loader: LocalImageLoader())
        defer { cache.clearMemory() }
        var tight = WebImageContext()
        tight.imageTransformer = ResizeTransformer(size: PixelSize(width: 200, height: 200))
        tight.maximumDecodedBytes = 100_000  // 64×64 decodes to 16 KiB; 200×200 is 156 KiB
        do {
            let result = try await manager.loadImage(with: LoadBudgetTests.gifURL, context: tight)
            Issue.record("expected imageTooLarge, got an image of \(result.image?.width ?? 0) pixels wide")
        } catch WebImageError.imageTooLarge(let reason) {
            #expect(reason.contains("produced 200x200, 156 KiB"), "\(reason)")
            #expect(reason.contains("the load's decoded-bytes budget is 98 KiB"), "\(reason)")
        }
        var roomy = tight
        roomy.maximumDecodedBytes = 1024 * 1024
        let loaded = try await manager.loadImage(with: LoadBudgetTests.gifURL, context: roomy)
        #expect(loaded.image?.width == 200)
    }
}
