import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1

/// Reads and writes whole objects at the endpoint of an ``S3Configuration``: a signed `GET` or
/// `PUT` of one object, for stores the operator configures (the service's S3 result store).
///
/// It shares the S3 source path's pieces — ``S3Configuration/requestURL(for:)`` for the URL,
/// ``AWSSignatureV4`` for the signature (a `PUT` signs its body's SHA-256), and the refusal
/// messages of ``S3RequestSigner`` — over its own HTTP client, which follows no redirect (a
/// signed request never leaves the endpoint). The configuration's bucket rules
/// (``S3Configuration/allowedBuckets``, ``S3Configuration/deniedBuckets``) are about sources
/// named in URLs and are not consulted: the objects here are named by the operator.
///
/// Call ``shutdown()`` before releasing a client; one released without it shuts its HTTP
/// client down on its own, without waiting.
public final class S3ObjectClient: Sendable {
    /// The endpoint, region, addressing style and credentials.
    public let configuration: S3Configuration
    private let client: HTTPClient
    private let timeout: TimeAmount
    private let now: @Sendable () -> Date

    /// A client for `configuration`, giving up on a request whose connection, answer or any read
    /// takes more than `timeout` seconds; `now` gives the signing time (default: the clock).
    public init(configuration: S3Configuration, timeout: Double = 30, now: @escaping @Sendable () -> Date = { Date() }) {
        self.configuration = configuration
        self.now = now
        let amount = TimeAmount.milliseconds(Int64(max(0.001, min(timeout, 86_400)) * 1000))
        self.timeout = amount
        var settings = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: HTTPClient.Configuration.Timeout(connect: amount, read: amount),
            // As many connections as a service has requests in flight: a lookup waiting for a
            // connection would only run into its timeout.
            connectionPool: HTTPClient.Configuration.ConnectionPool(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64))
        settings.httpVersion = .automatic
        // A refused connection fails the request at once instead of being retried until the
        // timeout: a store that is down is skipped, not waited for.
        settings.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: settings)
    }

    deinit {
        // Never block in deinit; the client finishes shutting down on its event loop. A client
        // shut down already answers `alreadyShutdown` at once, which is ignored.
        _ = client.shutdown()
    }

    /// Shuts the HTTP client down; calls made afterwards fail. A second call returns at once.
    public func shutdown() async throws {
        do {
            try await client.shutdown()
        } catch let error as HTTPClientError where error == .alreadyShutdown {
            return
        }
    }

    /// The object at `location` if its body is at most `maxBytes` bytes.
    /// - Throws: ``/WebImageCore/WebImageError/invalidDownloadResponse(reason:)`` when S3 refuses
    ///   the request (naming S3's error code and what to check) or the bucket does not exist;
    ///   ``/WebImageCore/WebImageError/transport(_:)`` when the endpoint cannot be reached;
    ///   ``/WebImageCore/WebImageError/invalidURL(_:)`` when no URL can be made for `location`.
    public func read(_ location: S3ObjectLocation, maxBytes: Int) async throws -> S3ObjectRead {
        let limit = max(0, maxBytes)
        let response = try await send(method: "GET", location, body: nil)
        guard response.status.code == 200 else {
            if response.status.code == 404 || response.status.code == 410 {
                let body = await errorBody(response)
                // A missing bucket is a setting to fix, not an object not written yet.
                guard S3ErrorResponse(body: body).code == "NoSuchBucket" else { return .missing }
                throw WebImageError.invalidDownloadResponse(
                    reason: "S3 bucket '\(location.bucket)' does not exist at \(configuration.effectiveEndpoint.absoluteString)")
            }
            throw await refusal(response, location: location)
        }
        if let length = response.headers.first(name: "Content-Length").flatMap(Int.init), length > limit { return .tooLarge }
        do {
            let buffer = try await response.body.collect(upTo: limit)
            return .object(Data(buffer.readableBytesView))
        } catch is NIOTooManyBytesError {
            return .tooLarge
        } catch {
            throw TransportErrorMapping.map(error)
        }
    }

    /// Writes `data` as the object at `location` (replacing any object there), with
    /// `contentType` as its `Content-Type`. S3 makes a written object visible whole or not at all.
    /// - Throws: as ``read(_:maxBytes:)``.
    public func write(_ data: Data, to location: S3ObjectLocation, contentType: String = "application/octet-stream") async throws {
        let response = try await send(method: "PUT", location, body: data, contentType: contentType)
        guard (200..<300).contains(Int(response.status.code)) else { throw await refusal(response, location: location) }
        _ = await errorBody(response)
    }

    /// The request for `method` on `location` with `body`, signed when there are credentials
    /// (the body's SHA-256 as its payload hash).
    func signedRequest(method: String, _ location: S3ObjectLocation, body: Data?, contentType: String? = nil) throws -> ImageDownloadRequest {
        var request = ImageDownloadRequest(url: try configuration.requestURL(for: location), method: method)
        if let contentType { request.setValue(contentType, forHeader: "Content-Type") }
        guard let credentials = configuration.credentials else { return request }
        let hash = body.map { AWSSignatureV4.hex(SHA256.hash(data: $0)) } ?? AWSSignatureV4.emptyPayloadHash
        return AWSSignatureV4(credentials: credentials, region: configuration.region).sign(request, date: now(), payloadHash: hash)
    }

    /// Sends a signed request for `location`.
    private func send(method: String, _ location: S3ObjectLocation, body: Data?, contentType: String? = nil) async throws -> HTTPClientResponse {
        let request = try signedRequest(method: method, location, body: body, contentType: contentType)
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: method)
        for field in request.headers { outgoing.headers.add(name: field.name, value: field.value) }
        if let body {
            outgoing.body = .bytes(ByteBuffer(bytes: body))
        }
        do {
            return try await client.execute(outgoing, timeout: timeout)
        } catch {
            throw TransportErrorMapping.map(error)
        }
    }

    /// The error S3's answer names (its status, code and message, and what to check).
    private func refusal(_ response: HTTPClientResponse, location: S3ObjectLocation) async -> WebImageError {
        let body = await errorBody(response)
        let info = ImageResponseInfo(
            statusCode: Int(response.status.code), url: try? configuration.requestURL(for: location),
            headers: response.headers.map { HTTPHeaderField(name: $0.name, value: $0.value) })
        return S3RequestSigner(configuration).refusal(info, body: body)
            ?? .invalidDownloadStatusCode(Int(response.status.code))
    }

    /// The first 64 KiB of an answer's body (an error document); the rest is not read.
    private func errorBody(_ response: HTTPClientResponse) async -> Data {
        var data = Data()
        do {
            for try await chunk in response.body {
                data.append(contentsOf: chunk.readableBytesView.prefix(64 * 1024 - data.count))
                if data.count >= 64 * 1024 { break }
            }
        } catch {}
        return data
    }
}
