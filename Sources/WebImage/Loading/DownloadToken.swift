import Foundation
import Synchronization

/// One caller's handle on a download of ``ImageDownloader`` (SPEC D-3, D-9).
///
/// Coalesced callers each get their own token. ``cancel()`` ends only this caller: its
/// completion receives ``/WebImageCore/WebImageError/cancelled`` exactly once (unless it already completed),
/// and the shared network request is cancelled when the last caller leaves.
///
/// With `progressiveLoad`, a partial image whose delivery had already begun on the download's
/// processing-pool job when `cancel()` ran on another thread may still arrive once; no final result follows
/// the `cancelled` error.
public final class DownloadToken: ImageLoaderToken {
    /// The URL requested.
    public let url: URL
    private let sink: DownloadCallerSink
    private let record: DownloadRecord
    private let onCancel: @Sendable () -> Void
    private let onPriority: @Sendable (DownloadPriority, UInt64) -> Void
    /// The priority last asked for and the number of the last update (see ``setPriority(_:)``).
    private let requested: Mutex<(priority: DownloadPriority, sequence: UInt64)>

    init(
        url: URL, sink: DownloadCallerSink, record: DownloadRecord, onCancel: @escaping @Sendable () -> Void,
        onPriority: @escaping @Sendable (DownloadPriority, UInt64) -> Void = { _, _ in }
    ) {
        self.url = url
        self.sink = sink
        self.record = record
        self.onCancel = onCancel
        self.onPriority = onPriority
        self.requested = Mutex((sink.priority, 0))
    }

    /// This caller's priority: the one it started with or the last one set.
    public var priority: DownloadPriority { requested.withLock { $0.priority } }

    /// Changes this caller's priority, up or down, while its download is queued or running.
    ///
    /// A download shared by several callers has the highest of their priorities, so lowering
    /// one caller lowers the download only when no other caller keeps it high. A queued
    /// download moves to its new place in the start order; a running one goes on. Each update
    /// is numbered, and the downloader ignores one that arrives after a later one: the last
    /// call wins even when threads race. After completion or cancellation it does nothing.
    public func setPriority(_ priority: DownloadPriority) {
        let sequence = requested.withLock { state -> UInt64 in
            state.priority = priority
            state.sequence &+= 1
            return state.sequence
        }
        onPriority(priority, sequence)
    }

    public func cancel() {
        onCancel()
        sink.finish(.failure(.cancelled))
    }

    /// Whether this caller's completion has been called with its final result.
    public var isFinished: Bool { sink.isFinished }

    /// Transfer numbers of the shared download so far (bytes, timings, redirects).
    public var metrics: DownloadMetrics { record.metrics }

    /// The response head, once received.
    public var response: ImageResponseInfo? { record.response }
}

/// The callbacks of one caller, delivered at most once finally (`finish`) and never after.
final class DownloadCallerSink: Sendable {
    let options: WebImageOptions
    let decodeOptions: DecodeOptions
    let coders: CodersManager
    let priority: DownloadPriority
    private let progress: ImageLoaderProgress?
    private let completion: Mutex<ImageLoaderCompletion?>

    init(
        options: WebImageOptions, decodeOptions: DecodeOptions, coders: CodersManager,
        priority: DownloadPriority, progress: ImageLoaderProgress?, completion: @escaping ImageLoaderCompletion
    ) {
        self.options = options
        self.decodeOptions = decodeOptions
        self.coders = coders
        self.priority = priority
        self.progress = progress
        self.completion = Mutex(completion)
    }

    var isFinished: Bool { completion.withLock { $0 == nil } }

    /// Whether this caller wants partial images.
    var wantsProgressive: Bool { options.contains(.progressiveLoad) && !options.contains(.avoidDecodeImage) }

    /// Delivers the final result; only the first call has an effect.
    func finish(_ result: Result<ImageLoaderResult, WebImageError>) {
        let callback = completion.withLock { stored -> ImageLoaderCompletion? in
            defer { stored = nil }
            return stored
        }
        callback?(result)
    }

    /// Delivers a partial result unless the caller already finished.
    func deliverPartial(_ result: ImageLoaderResult) {
        let callback = completion.withLock { $0 }
        callback?(.success(result))
    }

    /// Reports progress unless the caller already finished.
    func reportProgress(received: Int64, expected: Int64?, url: URL) {
        guard let progress, !isFinished else { return }
        progress(received, expected, url)
    }
}

/// Shared, thread-safe numbers of one download, read through every caller's token.
final class DownloadRecord: Sendable {
    private let state = Mutex<(metrics: DownloadMetrics, response: ImageResponseInfo?)>((DownloadMetrics(), nil))
    let taskState = Mutex<(cancel: (@Sendable () -> Void)?, cancelled: Bool)>((nil, false))

    var metrics: DownloadMetrics { state.withLock { $0.metrics } }
    var response: ImageResponseInfo? { state.withLock { $0.response } }

    func update(_ change: (inout DownloadMetrics) -> Void) {
        state.withLock { change(&$0.metrics) }
    }

    func setResponse(_ response: ImageResponseInfo) {
        state.withLock { $0.response = response }
    }
}

extension DownloadRecord {
    /// Attaches the cancellation of the network transfer (an `HTTPClient.Task`); runs it at once
    /// if ``cancelTask()`` came first.
    func attach(cancel: @escaping @Sendable () -> Void) {
        let cancelled = taskState.withLock { state -> Bool in
            if state.cancelled { return true }
            state.cancel = cancel
            return false
        }
        if cancelled { cancel() }
    }

    /// Cancels the network transfer (now, or as soon as it is attached).
    func cancelTask() {
        let cancel = taskState.withLock { state -> (@Sendable () -> Void)? in
            state.cancelled = true
            defer { state.cancel = nil }
            return state.cancel
        }
        cancel?()
    }

    /// Whether ``cancelTask()`` has been called.
    var isCancelled: Bool { taskState.withLock { $0.cancelled } }
}
