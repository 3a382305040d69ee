import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTPCompression
import NIOSSL
import Synchronization

extension ImageDownloader {
    /// Builds the request and hands it to the HTTP client with a ``TransferDelegate`` (SPEC D-5 …
    /// D-8); the outcome goes to ``finishDownload(_:setup:record:transferred:)`` on the
    /// processing pool. Runs on the thread that started the download; never blocks.
    func beginTransfer(_ id: DownloadID, setup: DownloadSetup, record: DownloadRecord) {
        guard !record.isCancelled else {
            completeTransfer(id, setup: setup, record: record, .failure(WebImageError.cancelled))
            return
        }
        record.update { $0.startDate = Date() }
        emit(.started(url: setup.key.url))
        // A revalidation asks whether the cached copy is current; it never continues a body.
        let resumed = setup.key.validators == nil ? resumableData.take(for: setup.key.url) : nil
        let duration = TimeAmount.milliseconds(Int64(max(0.001, configuration.maximumDownloadDuration) * 1000))
        send(id, setup: setup, record: record, resuming: resumed, deadline: .now() + duration)
    }

    /// How long a request whose connection was lost before any response waits before it is
    /// sent again.
    static let staleConnectionRetryDelay = TimeAmount.milliseconds(5)

    /// Sends the request, continuing `resumed` when given (SPEC X-3). A resumed request the
    /// server answers with anything but a fitting `206` or a `200` is sent once more, whole.
    ///
    /// A `GET` whose connection is lost before any response byte arrives is sent once more on
    /// a new connection (`attempt` 1), as browsers and URLSession do: a server may close an
    /// idle keep-alive connection just as the pool hands it to the next request, and the
    /// request then fails through no fault of the resource. Every attempt shares the download's
    /// one deadline (``ImageDownloaderConfiguration/maximumDownloadDuration``).
    private func send(
        _ id: DownloadID, setup: DownloadSetup, record: DownloadRecord, resuming resumed: ResumableDataStore.Entry?,
        deadline: NIODeadline, attempt: Int = 0
    ) {
        let built: BuiltRequest
        do {
            guard !record.isCancelled else { throw WebImageError.cancelled }
            built = try buildRequest(setup, resuming: resumed)
        } catch {
            if let resumed { resumableData.store(resumed, for: setup.key.url) }
            completeTransfer(id, setup: setup, record: record, .failure(error))
            return
        }
        let request = built.request
        let delegate = TransferDelegate(
            downloader: self, id: id, setup: setup, record: record, resumed: resumed, guardedOrigin: built.guardedOrigin)
        let client = built.mapped ? (endpointClient ?? self.client) : self.client
        let task = client.execute(request: request, delegate: delegate, eventLoop: .indifferent, deadline: deadline)
        record.attach { task.cancel() }
        task.futureResult.whenComplete { result in
            if case .failure(let error) = result {
                if error is ResumeRejected {
                    self.send(id, setup: setup, record: record, resuming: nil, deadline: deadline, attempt: attempt)
                    return
                }
                if attempt == 0, request.method == .GET, !delegate.receivedResponseHead, !record.isCancelled,
                    case .transport(let transport) = TransportErrorMapping.map(error), transport.kind == .connectionLost
                {
                    // A moment later, so the pool has read the closes of other idle connections
                    // the server dropped too, and leases a live or new one.
                    task.eventLoop.scheduleTask(in: Self.staleConnectionRetryDelay) {
                        self.send(id, setup: setup, record: record, resuming: resumed, deadline: deadline, attempt: 1)
                    }
                    return
                }
                // Kept after transport failures and cancellation; a response the checks refused
                // (a WebImageError) is not worth continuing.
                if !(error is WebImageError), let entry = delegate.resumableEntry() {
                    self.resumableData.store(entry, for: setup.key.url)
                }
            }
            self.completeTransfer(
                id, setup: setup, record: record,
                result.mapError { error -> any Error in
                    if let refused = self.egressFailure(error, hop: delegate.currentHopURL) { return refused }
                    return self.mapTransferFailure(error, record: record)
                })
        }
    }

    /// A transfer's failure as callers see it: the idle timeout and the total deadline become
    /// ``/WebImageCore/WebImageError/timedOut(_:)`` naming the deadline and its length (SPEC R-2);
    /// the rest goes through ``TransportErrorMapping/mapTransferFailure(_:)``.
    func mapTransferFailure(_ error: any Error, record: DownloadRecord) -> any Error {
        switch error as? HTTPClientError {
        case .deadlineExceeded?:
            return WebImageError.timedOut(.download(seconds: configuration.maximumDownloadDuration))
        case .readTimeout?, .connectTimeout?:
            return WebImageError.timedOut(.idle(seconds: configuration.downloadTimeout))
        default:
            if let decompression = error as? NIOHTTPDecompression.DecompressionError, decompression == .limit {
                let encoding = record.response?.value(forHeader: "Content-Encoding")?.lowercased() ?? "gzip"
                return WebImageError.decompressedResponseTooLarge(encoding: encoding, limit: configuration.maximumResponseSize)
            }
            if case .connectTimeout? = error as? ChannelError {
                return WebImageError.timedOut(.idle(seconds: configuration.downloadTimeout))
            }
            return TransportErrorMapping.mapTransferFailure(error)
        }
    }

    /// Ends a transfer. A successful bytes-only download (no caller decoding — each asked for
    /// `avoidDecodeImage` or is an ``ImageManager``'s, whose decode stage decodes — and no
    /// decryptor) completes right here, on the event loop: a hop to the pool would cost ~20 µs
    /// per request (docs/PERFORMANCE.md) for nothing but a handler call. Everything else —
    /// decoding, decryptors, failures (the ImageManager's failure handling calls delegates and
    /// completions) — goes to the processing pool in one submission.
    private func completeTransfer(
        _ id: DownloadID, setup: DownloadSetup, record: DownloadRecord, _ transferred: Result<ReceivedBody, any Error>
    ) {
        if case .success = transferred, setup.context.decryptor == nil,
            currentCallers(of: id).allSatisfy({ !$0.decodesImage })
        {
            finishDownload(id, setup: setup, record: record, transferred: transferred, onEventLoop: true)
            return
        }
        configuration.processingPool.submit {
            self.finishDownload(id, setup: setup, record: record, transferred: transferred, onEventLoop: false)
        }
    }

    /// The response head (on the event loop): metrics, cookies, the response modifier, the D-6
    /// checks. Returns the response as the callers will see it.
    func acceptResponse(
        _ head: HTTPResponseHead, url finalURL: URL, redirects: Int, setup: DownloadSetup, record: DownloadRecord
    ) throws -> ImageResponseInfo {
        var info = ImageResponseInfo(
            statusCode: Int(head.status.code), url: finalURL,
            headers: head.headers.map { HTTPHeaderField(name: $0.name, value: $0.value) })
        if setup.options.contains(.handleCookies) {
            cookieJar.store(setCookieHeaders: head.headers["Set-Cookie"], from: finalURL)
        }
        // AsyncHTTPClient follows redirects to http and https only and hands any other as the
        // final response: refuse it by name (SPEC R-1), not as a bad status code.
        if let target = RedirectTarget.url(status: head.status, headers: head.headers, from: finalURL),
            !["http", "https"].contains(target.scheme?.lowercased() ?? "")
        {
            throw WebImageError.unsupportedURL(scheme: target.scheme?.lowercased() ?? "")
        }
        record.update {
            $0.responseDate = Date()
            $0.redirectCount = redirects
            $0.statusCode = info.statusCode
            $0.expectedBytes = info.expectedContentLength
        }
        if let modifier = setup.context.responseModifier {
            guard let modified = modifier(info) else {
                throw WebImageError.invalidDownloadResponse(reason: "the response modifier rejected the response")
            }
            info = modified
        }
        record.setResponse(info)
        emit(.receivedResponse(url: setup.key.url, response: info))
        try check(info)
        return info
    }

    /// The end of the body (on the pool): truncation check, the last progress report, the
    /// decryptor.
    func finishBody(_ received: ReceivedBody, id: DownloadID, setup: DownloadSetup) throws -> DownloadedBody {
        let data = received.data
        let info = received.response
        let count = Int64(data.count)
        let expected = info.expectedContentLength
        if let expected, info.value(forHeader: "Content-Encoding") == nil, count != expected {
            if let entry = received.resumable { resumableData.store(entry, for: setup.key.url) }
            throw WebImageError.transport(TransportError(.connectionLost, "body ended after \(count) of \(expected) bytes"))
        }
        var throttle = received.throttle
        if throttle.shouldReportCompletion(count) {
            for caller in currentCallers(of: id) {
                caller.reportProgress(received: count, expected: expected ?? count, url: setup.key.url)
            }
        }
        guard !data.isEmpty else { throw WebImageError.badImageData(reason: "empty response body") }
        var bytes = data
        if let decryptor = setup.context.decryptor {
            guard let decrypted = decryptor(data, info) else {
                throw WebImageError.badImageData(reason: "the decryptor returned nil")
            }
            bytes = decrypted
        }
        return DownloadedBody(data: bytes, response: info, progressive: setup.context.decryptor == nil ? received.progressive : nil)
    }

    /// The response checks of D-6, in order: 304, status, content type, declared size.
    func check(_ info: ImageResponseInfo) throws {
        if info.statusCode == 304 { throw WebImageError.cacheNotModified }
        guard configuration.acceptableStatusCodes.contains(info.statusCode) else {
            throw WebImageError.invalidDownloadStatusCode(info.statusCode)
        }
        if let acceptable = configuration.acceptableContentTypes {
            guard let mime = info.mimeType, acceptable.contains(mime) else {
                throw WebImageError.invalidDownloadContentType(info.contentType)
            }
        }
        if let length = info.expectedContentLength, length > configuration.maximumResponseSize {
            throw WebImageError.responseTooLarge(limit: configuration.maximumResponseSize)
        }
    }
}
