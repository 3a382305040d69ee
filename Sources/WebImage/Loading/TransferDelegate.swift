import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// The transfer of one download on AsyncHTTPClient's delegate API: no Swift task per download
/// and no task resumption per body chunk.
///
/// AsyncHTTPClient calls these methods on the request's event loop, one at a time (the futures
/// returned by `didReceiveHead`/`didReceiveBodyPart` hold the next call back). On the event
/// loop run only cheap steps: the response head (metrics, cookies, the context's response
/// modifier, the D-6 checks), appending body bytes and the callers' progress handlers. Partial
/// decodes go to the ``/WebImageCore/ProcessingPool``; the returned future completes when one is
/// done, so the event loop never blocks and the server is not read faster than they run.
final class TransferDelegate: HTTPClientResponseDelegate {
    typealias Response = ReceivedBody

    private let downloader: ImageDownloader
    private let id: DownloadID
    private let setup: ImageDownloader.DownloadSetup
    private let record: DownloadRecord
    /// The origin redirects must stay on (see ``BuiltRequest/guardedOrigin``).
    private let guardedOrigin: URL?
    private let state = Mutex(State())

    /// Mutated on the event loop, and by a pool job while the event loop waits for it (the
    /// backpressure future), so never concurrently; the `Mutex` states it to the compiler.
    private struct State {
        var visits = 0
        var finalURL: URL?
        /// Where the last redirect pointed: the URL of the connection made next.
        var redirectTarget: URL?
        var info: ImageResponseInfo?
        var data = Data()
        var throttle = ProgressThrottle(minimumInterval: 0, expected: nil)
        var progressive: ProgressiveDecoding?
        var progressiveUnavailable = false
        /// The earlier partial body this request continues, until the response head says
        /// whether it does.
        var resumed: ResumableDataStore.Entry?
        /// Whether the response head arrived.
        var headReceived = false
        /// The validator to resume this response with, when it can be resumed.
        var resumeValidator: (value: String, isEntityTag: Bool)?
        /// A response refused for its status whose first bytes are read for the downloader's
        /// request modifier to describe (``DownloaderRequestModifier/refusal(_:body:)``).
        var refused: (error: WebImageError, response: ImageResponseInfo)?
    }

    init(
        downloader: ImageDownloader, id: DownloadID, setup: ImageDownloader.DownloadSetup, record: DownloadRecord,
        resumed: ResumableDataStore.Entry?, guardedOrigin: URL? = nil
    ) {
        self.downloader = downloader
        self.id = id
        self.setup = setup
        self.record = record
        self.guardedOrigin = guardedOrigin
        state.withLock { $0.resumed = resumed }
    }

    func didVisitURL(task: HTTPClient.Task<ReceivedBody>, _ request: HTTPClient.Request, _ head: HTTPResponseHead) {
        let target = RedirectTarget.followed(status: head.status, headers: head.headers, from: request.url)
        state.withLock {
            $0.visits += 1
            $0.finalURL = request.url
            $0.redirectTarget = target
        }
        // The client follows the redirect right after this call, on this event loop; failing the
        // task first makes it drop the redirect instead of building a request for a URL it
        // would trap on (a port above 65535 on an IP literal).
        if let target, let problem = RequestURLCheck.problem(with: target) {
            task.fail(
                reason: WebImageError.invalidDownloadResponse(
                    reason: "the server redirected to an invalid URL \(target.absoluteString.prefix(200)) (\(problem))"))
        } else if let target, let guardedOrigin, !BuiltRequest.sameOrigin(target, guardedOrigin) {
            // The headers the downloader's request modifier set may be credentials: none of them
            // go to another origin, so the redirect is not followed.
            task.fail(
                reason: WebImageError.invalidDownloadResponse(
                    reason: "the server redirected to another host (\(target.host ?? "")), and the request carries "
                        + "headers of the downloader's request modifier, which never follow a redirect to another host"))
        }
    }

    /// The URL of the request being made: the last redirect's target, else the last URL
    /// visited, else the download's URL (for telling which hop the egress proxy refused).
    var currentHopURL: URL {
        state.withLock { $0.redirectTarget ?? $0.finalURL } ?? setup.key.url
    }

    func didReceiveHead(task: HTTPClient.Task<ReceivedBody>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        let (visits, finalURL, resumed) = state.withLock { state in
            state.headReceived = true
            return (state.visits, state.finalURL, state.resumed)
        }
        do {
            var head = head
            var prefix = Data()
            if let resumed {
                let continued = try Self.continuation(of: resumed, in: head)
                if let continued {
                    head = continued
                    prefix = resumed.data
                    record.update {
                        $0.resumedBytes = Int64(prefix.count)
                        $0.receivedBytes = Int64(prefix.count)
                    }
                }
            }
            let validator = Self.resumeValidator(head, resumed: prefix.isEmpty ? nil : resumed)
            state.withLock {
                $0.resumed = nil
                $0.resumeValidator = validator
                $0.data = prefix
            }
            let info = try downloader.acceptResponse(
                head, url: finalURL ?? setup.key.url, redirects: max(0, visits - 1), setup: setup, record: record)
            let configuration = downloader.configuration
            let limit = configuration.maximumResponseSize
            let expected = info.expectedContentLength
            state.withLock {
                $0.info = info
                $0.throttle = ProgressThrottle(minimumInterval: configuration.minimumProgressInterval, expected: expected)
                if let expected, expected > 0, expected <= limit { $0.data.reserveCapacity(Int(expected)) }
                if !$0.data.isEmpty { _ = $0.throttle.shouldReport(Int64($0.data.count)) }
            }
            return task.eventLoop.makeSucceededVoidFuture()
        } catch {
            if let refusal = error as? WebImageError, case .invalidDownloadStatusCode = refusal, guardedOrigin != nil,
                downloader.configuration.requestModifier?.describesRefusals == true
            {
                let response = ImageResponseInfo(
                    statusCode: Int(head.status.code), url: finalURL ?? setup.key.url,
                    headers: head.headers.map { HTTPHeaderField(name: $0.name, value: $0.value) })
                state.withLock {
                    $0.refused = (refusal, response)
                    $0.data = Data()
                }
                return task.eventLoop.makeSucceededVoidFuture()
            }
            return task.eventLoop.makeFailedFuture(error)
        }
    }

    func didReceiveBodyPart(task: HTTPClient.Task<ReceivedBody>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let refusalLimit = max(0, downloader.configuration.refusalBodyLimit)
        let collectingRefusal = state.withLock { state -> Bool in
            guard state.refused != nil else { return false }
            let room = refusalLimit - state.data.count
            if room > 0 {
                buffer.withUnsafeReadableBytes { state.data.append(contentsOf: $0.prefix(room)) }
            }
            return true
        }
        if collectingRefusal { return task.eventLoop.makeSucceededVoidFuture() }
        let limit = downloader.configuration.maximumResponseSize
        let appended = state.withLock { state -> (received: Int64, report: Bool)? in
            guard Int64(state.data.count) + Int64(buffer.readableBytes) <= limit else { return nil }
            buffer.withUnsafeReadableBytes { state.data.append(contentsOf: $0) }  // a plain copy
            let received = Int64(state.data.count)
            return (received, state.throttle.shouldReport(received))
        }
        guard let (received, report) = appended else {
            return task.eventLoop.makeFailedFuture(WebImageError.responseTooLarge(limit: limit))
        }
        record.update { $0.receivedBytes = received }
        guard report else { return task.eventLoop.makeSucceededVoidFuture() }
        // Progress handlers run here, on the event loop (the ImageManager's handler only hands the
        // numbers to its callback queue): sending them to the pool would put reading the
        // socket behind the decodes queued there.
        let callers = downloader.currentCallers(of: id)
        let expected = state.withLock { $0.info?.expectedContentLength }
        for caller in callers { caller.reportProgress(received: received, expected: expected, url: setup.key.url) }
        let wanting = callers.filter(\.wantsProgressive)
        guard !wanting.isEmpty, expected.map({ received < $0 }) ?? true else {
            return task.eventLoop.makeSucceededVoidFuture()
        }
        // A partial image is decoded on the pool; the next body part waits for it.
        let promise = task.eventLoop.makePromise(of: Void.self)
        downloader.configuration.processingPool.submit {
            self.decodePartial(for: wanting)
            promise.succeed(())
        }
        return promise.futureResult
    }

    func didReceiveError(task: HTTPClient.Task<ReceivedBody>, _ error: any Error) {}

    func didFinishRequest(task: HTTPClient.Task<ReceivedBody>) throws -> ReceivedBody {
        if case let (error, response, body)? = state.withLock({ state in state.refused.map { ($0.error, $0.response, state.data) } }) {
            throw downloader.configuration.requestModifier?.refusal(response, body: body) ?? error
        }
        let finished = state.withLock { state -> ReceivedBody? in
            guard let info = state.info else { return nil }
            return ReceivedBody(
                data: state.data, response: info, progressive: state.progressive, throttle: state.throttle,
                resumable: Self.resumableEntry(state))
        }
        guard let finished else {
            throw WebImageError.invalidDownloadResponse(reason: "the request finished without a response")
        }
        return finished
    }

    /// Whether the response head arrived.
    var receivedResponseHead: Bool { state.withLock { $0.headReceived } }

    /// What to keep after this transfer failed (SPEC X-3): the bytes received when the response
    /// can be resumed, or the entry this request was to continue when no response came.
    func resumableEntry() -> ResumableDataStore.Entry? {
        state.withLock { state in
            state.headReceived ? Self.resumableEntry(state) : state.resumed
        }
    }

    private static func resumableEntry(_ state: State) -> ResumableDataStore.Entry? {
        guard let validator = state.resumeValidator, let expected = state.info?.expectedContentLength,
            !state.data.isEmpty, Int64(state.data.count) < expected
        else { return nil }
        return ResumableDataStore.Entry(
            data: state.data, validator: validator.value, validatorIsEntityTag: validator.isEntityTag, totalSize: expected)
    }

    /// On a pool thread: a partial image of the bytes so far, for the callers that asked.
    private func decodePartial(for wanting: [DownloadCallerSink]) {
        let (info, snapshot) = state.withLock { ($0.info, $0.data) }
        guard let info, let first = wanting.first else { return }
        let decoding = state.withLock { state -> ProgressiveDecoding? in
            guard !state.progressiveUnavailable else { return nil }
            if state.progressive == nil {
                if let coder = first.coders.progressiveDecoder(for: snapshot) {
                    state.progressive = ProgressiveDecoding(
                        decoder: coder.makeIncrementalDecoder(options: first.decodeOptions),
                        options: first.decodeOptions, coders: first.coders)
                } else if snapshot.count >= 64 * 1024 {
                    state.progressiveUnavailable = true  // no progressive coder claims this header
                }
            }
            return state.progressive
        }
        guard let decoding, let image = (try? decoding.update(snapshot, isComplete: false)) ?? nil else { return }
        let result = ImageLoaderResult(image: image, data: snapshot, response: info, finished: false)
        for caller in wanting where caller.decodeOptions == decoding.options && caller.coders === decoding.coders {
            caller.deliverPartial(result)
        }
    }
}
