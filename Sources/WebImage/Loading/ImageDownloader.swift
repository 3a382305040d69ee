import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTPCompression
import Synchronization

/// The default HTTP(S) loader (SPEC D-2 … D-10): one shared AsyncHTTPClient (connection reuse,
/// HTTP/1.1 and HTTP/2, TLS, redirects with a limit, decompression), streaming bodies,
/// coalescing concurrent requests for the same URL into one download, running at most
/// ``ImageDownloaderConfiguration/maxConcurrentDownloads`` at once in priority and FIFO/LIFO
/// order, and decoding on the ``/WebImageCore/ProcessingPool`` (never on NIO event loops or the caller's
/// thread).
///
/// Each transfer runs on AsyncHTTPClient's delegate API, without a Swift task of its own: the
/// request is handed to the client on the thread that starts the download, and the response
/// head, body bytes, progress handlers and ``DownloadObserver``s run on the request's NIO event
/// loop — keep progress handlers and observers short. Decoding, decryptors, failures and every
/// completion that needs decoding go to the processing pool; a bytes-only success
/// (no caller decoding: `avoidDecodeImage`, or an ``ImageManager``'s request; no decryptor)
/// completes on the event loop.
///
/// Coordination lives in a pure `DownloaderStateMachine` kept in a `Mutex`; every action it
/// returns (start a download, cancel a network task) is performed after leaving the lock.
///
/// Call ``shutdown()`` before releasing a downloader you created; ``shared`` lives for the
/// whole process.
public final class ImageDownloader: ImageLoader {
    /// The process-wide downloader with the default configuration.
    public static let shared = ImageDownloader()

    /// The settings this downloader was created with.
    public let configuration: ImageDownloaderConfiguration
    /// The cookie store used for requests with `handleCookies`.
    public let cookieJar: CookieJar
    let client: HTTPClient
    /// The client of requests the ``ImageDownloaderConfiguration/requestModifier`` mapped from
    /// one of its schemes (`s3://`) to the operator's endpoint, when the address policy's
    /// egress proxy is on: the endpoint is a setting, not a stranger's URL, so these connect
    /// without the proxy. `nil` when every request uses ``client``.
    let endpointClient: HTTPClient?
    /// The egress proxy enforcing ``ImageDownloaderConfiguration/addressPolicy`` (SPEC R-1), or
    /// `nil` for a permissive policy.
    let egressProxy: EgressProxy?
    /// Why the egress proxy could not start: every download then fails (closed, not open).
    let egressStartFailure: WebImageError?
    /// Partial bodies of interrupted downloads (SPEC X-3).
    let resumableData: ResumableDataStore
    let state: Mutex<LockedState>

    struct DownloadSetup: Sendable {
        let key: DownloadKey
        let options: WebImageOptions
        let context: WebImageContext
    }

    struct LockedState {
        var machine: DownloaderStateMachine<DownloadCallerSink>
        var setups: [DownloadID: DownloadSetup] = [:]
        var records: [DownloadID: DownloadRecord] = [:]
        var isShutdown = false
        /// The registered ``DownloadObserver``s by id, and the next id
        /// (ImageDownloader+Observers.swift).
        var observers: [Int: DownloadObserver] = [:]
        var nextObserverID = 0
    }

    /// A downloader with its own HTTP client configured from `configuration`.
    public init(configuration: ImageDownloaderConfiguration = ImageDownloaderConfiguration(), cookieJar: CookieJar = CookieJar()) {
        self.configuration = configuration
        self.cookieJar = cookieJar
        self.resumableData = ResumableDataStore(capacity: configuration.resumableDataCapacity)
        let group = configuration.eventLoopGroup ?? HTTPClient.defaultEventLoopGroup
        var egressProxy: EgressProxy?
        var egressStartFailure: WebImageError?
        if !configuration.addressPolicy.isPermissive {
            do {
                egressProxy = try EgressProxy(
                    policy: configuration.addressPolicy, connectTimeout: Self.timeAmount(configuration.downloadTimeout), group: group)
            } catch {
                egressStartFailure = error as? WebImageError ?? .invalidDownloadOperation(reason: "\(error)")
            }
        }
        self.egressProxy = egressProxy
        self.egressStartFailure = egressStartFailure
        self.client = HTTPClient(
            eventLoopGroup: group, configuration: Self.clientConfiguration(configuration, proxyPort: egressProxy?.port))
        if egressProxy != nil, let modifier = configuration.requestModifier, !modifier.mappedSchemes.isEmpty {
            self.endpointClient = HTTPClient(eventLoopGroup: group, configuration: Self.clientConfiguration(configuration))
        } else {
            self.endpointClient = nil
        }
        self.state = Mutex(
            LockedState(
                machine: DownloaderStateMachine(
                    maxConcurrentDownloads: configuration.maxConcurrentDownloads, order: configuration.executionOrder,
                    coalesces: configuration.coalescesDownloads)))
    }

    deinit {
        let alreadyShutDown = state.withLock { $0.isShutdown }
        if !alreadyShutDown {
            // Never block in deinit; the client finishes shutting down on its event loop.
            _ = client.shutdown()
            _ = endpointClient?.shutdown()
        }
        egressProxy?.shutdown()
    }

    /// Cancels every download and shuts the HTTP client down. Requests made afterwards fail
    /// with ``/WebImageCore/WebImageError/invalidDownloadOperation(reason:)``.
    public func shutdown() async throws {
        let records = state.withLock { state -> [DownloadRecord] in
            state.isShutdown = true
            return Array(state.records.values)
        }
        for record in records { record.cancelTask() }
        defer { egressProxy?.shutdown() }
        try? await endpointClient?.shutdown()
        try await client.shutdown()
    }

    // MARK: ImageLoader

    /// HTTP and HTTPS URLs, and those of the schemes the
    /// ``ImageDownloaderConfiguration/requestModifier`` maps (``DownloaderRequestModifier/mappedSchemes``).
    public func canRequestImage(for url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https" || configuration.requestModifier?.mappedSchemes.contains(scheme) == true
    }

    /// Downloads `url` as an ``ImageLoader`` (see ``downloadImage(with:options:context:progress:completed:)``).
    public func requestImage(
        with url: URL,
        options: WebImageOptions,
        context: WebImageContext,
        progress: ImageLoaderProgress?,
        completed: @escaping ImageLoaderCompletion
    ) -> any ImageLoaderToken {
        downloadImage(with: url, options: options, context: context, progress: progress, completed: completed)
    }

    /// Like ``requestImage(with:options:context:progress:completed:)`` but returns the concrete
    /// ``DownloadToken`` (with transfer metrics).
    public func downloadImage(
        with url: URL,
        options: WebImageOptions = [],
        context: WebImageContext = WebImageContext(),
        progress: ImageLoaderProgress? = nil,
        completed: @escaping ImageLoaderCompletion
    ) -> DownloadToken {
        let priority = DownloadPriority(options: options, context: context)
        let sink = DownloadCallerSink(
            options: options,
            decodeOptions: context.decodeOptions(for: options, url: url),
            coders: context.imageCoders ?? configuration.coders ?? CodersManager.shared,
            decodesImage: !options.contains(.avoidDecodeImage) && !context.deliversBytesOnly,
            priority: priority, progress: progress, completion: completed)
        let key = DownloadKey(
            url: url,
            validators: context.cachedResponseValidators.flatMap { $0.isEmpty ? nil : $0 },
            requestOptions: options.intersection([.handleCookies, .allowInvalidSSLCertificates]))
        let accepted = state.withLock { state -> (DownloaderStateMachine<DownloadCallerSink>.RequestAction, DownloadRecord)? in
            guard !state.isShutdown else { return nil }
            let action = state.machine.request(key: key, priority: priority, caller: sink)
            if !action.coalesced {
                state.setups[action.downloadID] = DownloadSetup(key: key, options: options, context: context)
                state.records[action.downloadID] = DownloadRecord()
            }
            return (action, state.records[action.downloadID] ?? DownloadRecord())
        }
        guard let (action, record) = accepted else {
            let token = DownloadToken(url: url, sink: sink, record: DownloadRecord(), onCancel: {})
            sink.finish(.failure(.invalidDownloadOperation(reason: "the downloader has been shut down")))
            return token
        }
        let callerID = action.callerID
        let token = DownloadToken(
            url: url, sink: sink, record: record,
            onCancel: { [weak self] in self?.cancelCaller(callerID) },
            onPriority: { [weak self] priority, sequence in
                self?.setCallerPriority(callerID, priority, sequence: sequence)
            })
        start(action.start)
        return token
    }

    /// Applies a caller's live priority change (queue order only: no action to perform).
    private func setCallerPriority(_ callerID: DownloadCallerID, _ priority: DownloadPriority, sequence: UInt64) {
        state.withLock { _ = $0.machine.setPriority(callerID, to: priority, sequence: sequence) }
    }

    /// The default rule: transient network errors, cancellation and 304 never block a URL.
    public func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool {
        ImageLoaders.defaultShouldBlockFailedURL(error)
    }

    /// Changes the concurrency limit at run time; queued downloads start at once if it grew.
    /// Running downloads are never interrupted when it shrinks.
    public func setMaxConcurrentDownloads(_ limit: Int) {
        let starts = state.withLock { $0.machine.setMaxConcurrentDownloads(limit) }
        start(starts)
    }

    // MARK: Introspection (tests, diagnostics)

    /// Downloads holding a slot now (running or being cancelled).
    public var runningDownloadCount: Int { state.withLock { $0.machine.runningCount } }
    /// Downloads waiting for a slot.
    public var queuedDownloadCount: Int { state.withLock { $0.machine.queuedCount } }
    /// The priorities of the downloads waiting for a slot, highest first.
    var queuedDownloadPriorities: [DownloadPriority] { state.withLock { $0.machine.queuedPriorities } }

    // MARK: Actions (always performed outside the lock)

    private func cancelCaller(_ callerID: DownloadCallerID) {
        let recordToCancel = state.withLock { state -> DownloadRecord? in
            switch state.machine.cancel(callerID) {
            case .none, .removed:
                return nil
            case .removedAndDropQueued(_, let downloadID):
                state.setups[downloadID] = nil
                state.records[downloadID] = nil
                return nil
            case .removedAndCancelDownload(_, let downloadID):
                return state.records[downloadID]
            }
        }
        recordToCancel?.cancelTask()
    }

    private func start(_ starts: [DownloaderStateMachine<DownloadCallerSink>.Start]) {
        for start in starts {
            let found = state.withLock { state -> (DownloadSetup, DownloadRecord)? in
                guard let setup = state.setups.removeValue(forKey: start.id), let record = state.records[start.id] else {
                    return nil
                }
                return (setup, record)
            }
            guard let (setup, record) = found else { continue }
            beginTransfer(start.id, setup: setup, record: record)
        }
    }

    /// The end of one download: completes it in the machine, starts what it frees a slot for,
    /// and delivers. On a processing-pool thread, decoding happens here; on the event loop (a
    /// bytes-only download), a caller that joined since and wants decoding sends the delivery
    /// to the pool.
    func finishDownload(
        _ id: DownloadID, setup: DownloadSetup, record: DownloadRecord, transferred: Result<ReceivedBody, any Error>,
        onEventLoop: Bool
    ) {
        let outcome: Result<DownloadedBody, WebImageError>
        do {
            let received = try transferred.get()
            if record.isCancelled { throw WebImageError.cancelled }
            outcome = .success(try finishBody(received, id: id, setup: setup))
        } catch {
            outcome = .failure(TransportErrorMapping.map(error))
        }
        record.update { $0.endDate = Date() }
        let isSuccess = if case .success = outcome { true } else { false }
        let completion = state.withLock { state in
            state.records[id] = nil
            // A body stays joinable while it is delivered (decoded, handed to the callers): a
            // request arriving meanwhile shares it instead of downloading the URL again.
            return isSuccess ? state.machine.completeForDelivery(id) : state.machine.complete(id)
        }
        start(completion.start)
        switch outcome {
        case .success(let body):
            emit(.finished(url: setup.key.url, metrics: record.metrics))
            let callers = completion.callers.map(\.caller)
            if onEventLoop, callers.contains(where: \.decodesImage) {
                configuration.processingPool.submit { self.deliverThenEnd(id, body, to: callers, onEventLoop: false) }
            } else {
                deliverThenEnd(id, body, to: callers, onEventLoop: onEventLoop)
            }
        case .failure(let error):
            emit(.failed(url: setup.key.url, error: error, metrics: record.metrics))
            for (_, caller) in completion.callers { caller.finish(.failure(error)) }
        }
    }

    /// Delivers a body to the callers of its download, then ends the download's delivery phase
    /// and delivers the same body (the decoded images reused) to the callers that joined
    /// meanwhile. The callers' completions run before the download stops accepting callers, so
    /// an ``ImageManager`` has filled its memory cache by then (it does so synchronously in the
    /// completion): a later request finds the image there.
    private func deliverThenEnd(_ id: DownloadID, _ body: DownloadedBody, to callers: [DownloadCallerSink], onEventLoop: Bool) {
        let decoded = DeliveryResults()
        deliver(body, to: callers, decoded: decoded, then: { onEventLoop in
            let late = self.state.withLock { $0.machine.endDelivery(id) }.map(\.caller)
            guard !late.isEmpty else { return }
            if onEventLoop, late.contains(where: \.decodesImage) {
                self.configuration.processingPool.submit { self.deliver(body, to: late, decoded: decoded) }
            } else {
                self.deliver(body, to: late, decoded: decoded)
            }
        }, onEventLoop: onEventLoop)
    }

    /// The current callers of a download (for progress and partial images).
    func currentCallers(of id: DownloadID) -> [DownloadCallerSink] {
        state.withLock { $0.machine.callers(of: id) }
    }
}
