import Foundation
import Synchronization
import WebImage
import WebImageCore
import WebImageTesting

/// A context whose coders hold only ``RawTestCoder``.
func rawContext() -> WebImageContext {
    var context = WebImageContext()
    context.imageCoders = CodersManager(coders: [RawTestCoder()])
    return context
}

/// The downloader timeouts of the tests that do not test a timeout: long enough that a loaded
/// machine never reaches them (a loopback answer takes milliseconds, but a test process beside
/// hundreds of others and `stress-ng` can be kept off the processor for tens of seconds; a test
/// that needs a download to stay open holds it at a gate, never behind a slow server), short
/// enough to end a hang before the tests' hang guards (``eventually(within:_:)``, 300 s) would.
enum TestTimeouts {
    /// ``ImageDownloaderConfiguration/downloadTimeout``.
    static let download: Double = 120
    /// ``ImageDownloaderConfiguration/maximumDownloadDuration``.
    static let request: Double = 150
}

/// A downloader configuration for tests: the raw test coder, and ``TestTimeouts``.
func testDownloaderConfiguration() -> ImageDownloaderConfiguration {
    var configuration = ImageDownloaderConfiguration()
    configuration.downloadTimeout = TestTimeouts.download
    configuration.maximumDownloadDuration = TestTimeouts.request
    configuration.coders = CodersManager(coders: [RawTestCoder()])
    return configuration
}

/// Runs `body` with a started server and a downloader, shutting both down afterwards.
func withServerAndDownloader<T>(
    configuration: ImageDownloaderConfiguration = testDownloaderConfiguration(),
    _ body: (HTTPTestServer, ImageDownloader) async throws -> T
) async throws -> T {
    try await withServerAndDownloader(HTTPTestServer(), configuration: { _ in configuration }, body)
}

/// Runs `body` with `server` started and a downloader configured for it (e.g. trusting its
/// certificate), shutting both down afterwards.
func withServerAndDownloader<T>(
    _ server: HTTPTestServer,
    configuration: (HTTPTestServer) throws -> ImageDownloaderConfiguration,
    _ body: (HTTPTestServer, ImageDownloader) async throws -> T
) async throws -> T {
    try await server.start()
    let downloader: ImageDownloader
    do {
        downloader = ImageDownloader(configuration: try configuration(server))
    } catch {
        await server.shutdown()
        throw error
    }
    do {
        let result = try await body(server, downloader)
        try await downloader.shutdown()
        await server.shutdown()
        return result
    } catch {
        try? await downloader.shutdown()
        await server.shutdown()
        throw error
    }
}

/// Resumes a continuation once.
final class ResumeOnce<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ value: Value) {
        let stored = continuation.withLock { stored in
            defer { stored = nil }
            return stored
        }
        stored?.resume(returning: value)
    }
}

/// Loads `url` and returns the final result (partial results are skipped).
func loadFinal(
    _ loader: any ImageLoader, _ url: URL, options: WebImageOptions = [], context: WebImageContext = WebImageContext()
) async -> Result<ImageLoaderResult, WebImageError> {
    await withCheckedContinuation { continuation in
        let once = ResumeOnce(continuation)
        _ = loader.requestImage(with: url, options: options, context: context, progress: nil) { result in
            if case .success(let value) = result, !value.finished { return }
            once.resume(result)
        }
    }
}

/// Thread-safe recorder of values delivered by callbacks.
final class Recorder<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])

    func append(_ value: Value) { storage.withLock { $0.append(value) } }
    var values: [Value] { storage.withLock { $0 } }
    var count: Int { storage.withLock { $0.count } }
}

/// Polls `condition` every 10 ms for at most `seconds` (hang detection, not timing).
/// A hang guard, not a timing assertion: generous, because suites run in parallel on 2 cores,
/// possibly beside `stress-ng` (`make test-under-load`). It returns as soon as the condition
/// holds, so a passing test never waits for it.
func eventually(within seconds: Double = 300, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

extension Result where Failure == WebImageError {
    /// The error's case name, or "success".
    var code: String {
        switch self {
        case .success: "success"
        case .failure(let error): error.code
        }
    }

    var transportKind: TransportError.Kind? {
        if case .failure(.transport(let error)) = self { return error.kind }
        return nil
    }
}
