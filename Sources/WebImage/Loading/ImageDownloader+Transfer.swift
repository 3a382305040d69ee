import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import Synchronization

/// The bytes of a finished download and what is needed to decode them.
struct DownloadedBody: Sendable {
    let data: Data
    let response: ImageResponseInfo
    let progressive: ProgressiveDecoding?
}

/// The one incremental decoder of a progressive download (SPEC D-8). Its decoder is used by
/// one download at a time; the `Mutex` serialises the calls.
final class ProgressiveDecoding: Sendable {
    let options: DecodeOptions
    let coders: CodersManager
    private let decoder: Mutex<any IncrementalImageDecoder>

    init(decoder: sending any IncrementalImageDecoder, options: DecodeOptions, coders: CodersManager) {
        self.decoder = Mutex(decoder)
        self.options = options
        self.coders = coders
    }

    func update(_ data: Data, isComplete: Bool) throws -> Image? {
        try decoder.withLock { try $0.update(data, isComplete: isComplete) }
    }
}

extension ImageDownloader {
    /// Sends the request, checks the response (SPEC D-6), streams the body with progress and
    /// partial images (D-7, D-8), and applies the decryptor.
    func transfer(_ id: DownloadID, setup: DownloadSetup, record: DownloadRecord) async throws -> DownloadedBody {
        try Task.checkCancellation()
        let request = try buildRequest(setup)
        record.update { $0.startDate = Date() }
        emit(.started(url: setup.key.url))
        let duration = TimeAmount.milliseconds(Int64(max(0.001, configuration.maximumRequestDuration) * 1000))
        let response = try await client.execute(request, deadline: .now() + duration)

        let finalURL = response.url ?? setup.key.url
        var info = ImageResponseInfo(
            statusCode: Int(response.status.code), url: finalURL,
            headers: response.headers.map { HTTPHeaderField(name: $0.name, value: $0.value) })
        if setup.options.contains(.handleCookies) {
            cookieJar.store(setCookieHeaders: response.headers["Set-Cookie"], from: finalURL)
        }
        record.update {
            $0.responseDate = Date()
            $0.redirectCount = max(0, response.history.count - 1)
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

        let (data, progressive) = try await receiveBody(response.body, id: id, url: setup.key.url, info: info, record: record)
        guard !data.isEmpty else { throw WebImageError.badImageData(reason: "empty response body") }
        var bytes = data
        if let decryptor = setup.context.decryptor {
            guard let decrypted = decryptor(data, info) else {
                throw WebImageError.badImageData(reason: "the decryptor returned nil")
            }
            bytes = decrypted
        }
        return DownloadedBody(data: bytes, response: info, progressive: setup.context.decryptor == nil ? progressive : nil)
    }

    /// The request D-5 describes: default headers, credentials, validators, cookies, then the
    /// context's request modifier.
    func buildRequest(_ setup: DownloadSetup) throws -> HTTPClientRequest {
        var request = ImageDownloadRequest(url: setup.key.url, headers: configuration.headers)
        if let credentials = configuration.credentials {
            request.setValue(credentials.authorizationHeader, forHeader: "Authorization")
        }
        if let validators = setup.key.validators {
            if let tag = validators.entityTag { request.setValue(tag, forHeader: "If-None-Match") }
            if let date = validators.lastModified { request.setValue(date, forHeader: "If-Modified-Since") }
        }
        if setup.options.contains(.handleCookies), let cookie = cookieJar.cookieHeader(for: setup.key.url) {
            request.setValue(cookie, forHeader: "Cookie")
        }
        if let modifier = setup.context.requestModifier {
            guard let modified = modifier(request) else {
                throw WebImageError.invalidDownloadOperation(reason: "the request modifier returned nil")
            }
            request = modified
        }
        var http = HTTPClientRequest(url: request.url.absoluteString)
        http.method = HTTPMethod(rawValue: request.method)
        for field in request.headers { http.headers.add(name: field.name, value: field.value) }
        if setup.options.contains(.allowInvalidSSLCertificates) {
            // The configured TLS settings (client certificate, minimum version, …) without
            // certificate verification, for this request only.
            var tls = configuration.tlsConfiguration ?? TLSConfiguration.makeClientConfiguration()
            tls.certificateVerification = .none
            http.tlsConfiguration = tls
        }
        return http
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

    /// Streams the body: size limit, progress, partial images.
    private func receiveBody(
        _ body: HTTPClientResponse.Body, id: DownloadID, url: URL, info: ImageResponseInfo, record: DownloadRecord
    ) async throws -> (Data, ProgressiveDecoding?) {
        let limit = configuration.maximumResponseSize
        let expected = info.expectedContentLength
        var data = Data()
        if let expected, expected > 0, expected <= limit { data.reserveCapacity(Int(expected)) }
        var throttle = ProgressThrottle(minimumInterval: configuration.minimumProgressInterval, expected: expected)
        var progressive: ProgressiveDecoding?
        var progressiveUnavailable = false

        for try await buffer in body {
            try Task.checkCancellation()
            guard Int64(data.count) + Int64(buffer.readableBytes) <= limit else {
                throw WebImageError.responseTooLarge(limit: limit)
            }
            buffer.withUnsafeReadableBytes { data.append(contentsOf: $0) }  // a plain copy, no generic Sequence path
            let received = Int64(data.count)
            record.update { $0.receivedBytes = received }
            guard throttle.shouldReport(received) else { continue }
            let callers = currentCallers(of: id)
            for caller in callers { caller.reportProgress(received: received, expected: expected, url: url) }

            // Partial images, at the progress cadence, for callers that asked for them.
            let wanting = callers.filter(\.wantsProgressive)
            guard let first = wanting.first, !progressiveUnavailable, expected.map({ received < $0 }) ?? true else { continue }
            if progressive == nil {
                if let coder = first.coders.progressiveDecoder(for: data) {
                    progressive = ProgressiveDecoding(
                        decoder: coder.makeIncrementalDecoder(options: first.decodeOptions),
                        options: first.decodeOptions, coders: first.coders)
                } else if data.count >= 64 * 1024 {
                    progressiveUnavailable = true  // no progressive coder claims this header
                }
            }
            guard let decoding = progressive else { continue }
            let snapshot = data
            let partial = try? await configuration.processingPool.run { try decoding.update(snapshot, isComplete: false) }
            if let image = partial ?? nil {
                let result = ImageLoaderResult(image: image, data: snapshot, response: info, finished: false)
                for caller in wanting where caller.decodeOptions == decoding.options && caller.coders === decoding.coders {
                    caller.deliverPartial(result)
                }
            }
        }
        try Task.checkCancellation()
        let received = Int64(data.count)
        if let expected, info.value(forHeader: "Content-Encoding") == nil, received != expected {
            throw WebImageError.transport(
                TransportError(.connectionLost, "body ended after \(received) of \(expected) bytes"))
        }
        if throttle.shouldReportCompletion(received) {
            for caller in currentCallers(of: id) {
                caller.reportProgress(received: received, expected: expected ?? received, url: url)
            }
        }
        return (data, progressive)
    }

    /// Decodes once per distinct (coders, decode options) among the callers, on the processing
    /// pool, and completes every caller (SPEC D-3: shared bytes, own decoded image).
    func deliver(_ body: DownloadedBody, to callers: [DownloadCallerSink]) async {
        struct GroupKey: Hashable {
            let coders: ObjectIdentifier
            let options: DecodeOptions
            let decode: Bool
        }
        if callers.count == 1, let caller = callers.first {  // the common case: no grouping needed
            guard !caller.isFinished else { return }
            if caller.options.contains(.avoidDecodeImage) {
                caller.finish(.success(ImageLoaderResult(image: nil, data: body.data, response: body.response, finished: true)))
            } else {
                caller.finish(await decode(body, options: caller.decodeOptions, coders: caller.coders))
            }
            return
        }
        var groups: [GroupKey: [DownloadCallerSink]] = [:]
        var order: [GroupKey] = []
        for caller in callers {
            let key = GroupKey(
                coders: ObjectIdentifier(caller.coders), options: caller.decodeOptions,
                decode: !caller.options.contains(.avoidDecodeImage))
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(caller)
        }
        for key in order {
            guard let members = groups[key], !members.allSatisfy(\.isFinished), let coders = members.first?.coders else {
                continue
            }
            let result: Result<ImageLoaderResult, WebImageError>
            if key.decode {
                result = await decode(body, options: key.options, coders: coders)
            } else {
                result = .success(ImageLoaderResult(image: nil, data: body.data, response: body.response, finished: true))
            }
            for member in members { member.finish(result) }
        }
    }

    private func decode(_ body: DownloadedBody, options: DecodeOptions, coders: CodersManager) async -> Result<
        ImageLoaderResult, WebImageError
    > {
        let data = body.data
        let progressive = body.progressive.flatMap { $0.options == options && $0.coders === coders ? $0 : nil }
        do {
            let image = try await configuration.processingPool.run { () throws -> Image in
                if let progressive, let image = try progressive.update(data, isComplete: true) { return image }
                return try PipelineMetrics.timedDecode("download") { try coders.decode(data, options: options) }
            }
            return .success(ImageLoaderResult(image: image, data: data, response: body.response, finished: true))
        } catch let error as WebImageError {
            return .failure(error)
        } catch {
            return .failure(.badImageData(reason: "\(error)"))
        }
    }
}
