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

    init(
        url: URL, sink: DownloadCallerSink, record: DownloadRecord, onCancel: @escaping @Sendable () -> Void,
        onPriority: @escaping @Sendable (DownloadPriority, UInt64) -> Void = { _, _ in }
    ) {
        self.url = url
        self.sink = sink
        self.record = record
        self.onCancel = onCancel
        self.onPriority = onPriority
    }

    /// This caller's priority: the one it started with or the last one set.
    public var priority: DownloadPriority { sink.requestedPriority }

    /// Changes this caller's priority, up or down, while its download is queued or running.
    ///
    /// A download shared by several callers has the highest of their priorities, so lowering
    /// one caller lowers the download only when no other caller keeps it high. A queued
    /// download moves to its new place in the start order; a running one goes on. Each update
    /// is numbered, and the downloader ignores one that arrives after a later one: the last
    /// call wins even when threads race. After completion or cancellation it does nothing.
    public func setPriority(_ priority: DownloadPriority) {
        onPriority(priority, sink.request(priority))
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

/// The callbacks of one caller, delivered at most once finally (`finish`) and never after, and
/// the priority its token last asked for.
final class DownloadCallerSink: Sendable {
    let options: WebImageOptions
    let decodeOptions: DecodeOptions
    let coders: CodersManager
    /// Whether this caller's final result is decoded here: not with `avoidDecodeImage`, nor
    /// for an ``ImageManager``, whose decode stage decodes the bytes
    /// (``WebImageContext/deliversBytesOnly``).
    let decodesImage: Bool
    /// The priority the caller started with.
    let priority: DownloadPriority
    private let progress: ImageLoaderProgress?

    private struct State {
        var completion: ImageLoaderCompletion?
        /// The priority last asked for through the token, and the number of that update.
        var requested: DownloadPriority
        var sequence: UInt64 = 0
    }

    private let state: Mutex<State>

    init(
        options: WebImageOptions, decodeOptions: DecodeOptions, coders: CodersManager, decodesImage: Bool,
        priority: DownloadPriority, progress: ImageLoaderProgress?, completion: @escaping ImageLoaderCompletion
    ) {
        self.options = options
        self.decodeOptions = decodeOptions
        self.coders = coders
        self.decodesImage = decodesImage
        self.priority = priority
        self.progress = progress
        self.state = Mutex(State(completion: completion, requested: priority))
    }

    var isFinished: Bool { state.withLock { $0.completion == nil } }

    /// The priority last asked for (the starting one until the token sets another).
    var requestedPriority: DownloadPriority { state.withLock { $0.requested } }

    /// Records `priority` as asked for; returns the number of this update (later ones win).
    func request(_ priority: DownloadPriority) -> UInt64 {
        state.withLock { state in
            state.requested = priority
            state.sequence &+= 1
            return state.sequence
        }
    }

    /// Whether this caller wants partial images.
    var wantsProgressive: Bool { options.contains(.progressiveLoad) && !options.contains(.avoidDecodeImage) }

    /// Delivers the final result; only the first call has an effect.
    func finish(_ result: Result<ImageLoaderResult, WebImageError>) {
        let callback = state.withLock { state -> ImageLoaderCompletion? in
            defer { state.completion = nil }
            return state.completion
        }
        callback?(result)
    }

    /// Delivers a partial result unless the caller already finished.
    func deliverPartial(_ result: ImageLoaderResult) {
        let callback = state.withLock { $0.completion }
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
    private struct State {
        var metrics = DownloadMetrics()
        var response: ImageResponseInfo?
        /// Cancels the network transfer, once attached.
        var cancel: (@Sendable () -> Void)?
        var cancelled = false
    }

    private let state = Mutex(State())

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
        let cancelled = state.withLock { state -> Bool in
            if state.cancelled { return true }
            state.cancel = cancel
            return false
        }
        if cancelled { cancel() }
    }

    /// Cancels the network transfer (now, or as soon as it is attached).
    func cancelTask() {
        let cancel = state.withLock { state -> (@Sendable () -> Void)? in
            state.cancelled = true
            defer { state.cancel = nil }
            return state.cancel
        }
        cancel?()
    }

    /// Whether ``cancelTask()`` has been called.
    var isCancelled: Bool { state.withLock { $0.cancelled } }
}
