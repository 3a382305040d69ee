import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

extension ImageService {
    /// Adds the image routes (`GET`/`HEAD` of `/{signature}/{options}/{source}` under the
    /// group's path) to a router or router group of the caller's application (SPEC V-1).
    ///
    /// ```swift
    /// let router = Router(context: ImageRequestContext.self)
    /// service.addRoutes(to: router.group("images"))
    /// let app = Application(router: router, server: ImageServer.httpServer())
    /// ```
    ///
    /// A client that goes away cancels its request (SPEC V-8). With a context that knows its
    /// channel (``ImageRequestContext``, or any ``ChannelRequestContext``) on a server with a
    /// ``ClientDisconnectHandler`` (``ImageServer/httpServer(idleTimeout:headerTimeout:firstByteTimeout:)``), connections stay
    /// alive between requests. With any other context the route watches the request stream
    /// itself, which consumes it: those responses say `Connection: close`.
    public func addRoutes<Methods: RouterMethods>(to router: Methods, logger: Logger = Logger(label: "webimage.server")) {
        for method in [HTTPRequest.Method.get, .head] {
            router.on("**", method: method) { [self] request, context in
                let start = ContinuousClock.now
                let path = Self.imagePath(request, context)
                let accept = request.headers[.accept], ifNoneMatch = request.headers[.ifNoneMatch]
                // The hit path answers at once: nothing to cancel, nothing to watch.
                if let known = knownReply(path: path, accept: accept, ifNoneMatch: ifNoneMatch) {
                    return finish(known, request: request, start: start, logger: logger)
                }
                if let channelContext = context as? any ChannelRequestContext,
                   let connection = ClientConnection.of(channelContext.channel) {
                    // V-8 with keep-alive: the connection's handler cancels this work if the
                    // client goes away; the request stream is left to Hummingbird.
                    let reply = try await connection.cancellingOnClose {
                        await self.freshReply(path: path, accept: accept, ifNoneMatch: ifNoneMatch)
                    }
                    return finish(reply, request: request, start: start, logger: logger, clientGone: connection.isGone)
                }
                // V-8 without a channel: watch the inbound stream. It is consumed, so
                // Hummingbird closes the connection after the response: say so, or a
                // keep-alive client could send its next request on a closing connection.
                let reply = try await request.body.consumeWithCancellationOnInboundClose { _ in
                    await self.freshReply(path: path, accept: accept, ifNoneMatch: ifNoneMatch)
                }
                // Here only a cancelled request (its client went away) answers 503.
                var response = finish(reply, request: request, start: start, logger: logger, clientGone: reply.status == 503)
                response.headers[.connection] = "close"
                return response
            }
        }
    }

    /// Adds `/health` (`GET` and `HEAD`: 200 ready, 503 draining) and `/metrics` (Prometheus text).
    public func addOperationRoutes<Methods: RouterMethods>(to router: Methods) {
        for method in [HTTPRequest.Method.get, .head] {
            router.on("health", method: method) { [self] request, _ in
                let draining = self.isDraining
                let text = draining ? "draining\n" : "ok\n"
                return Response(
                    status: draining ? .serviceUnavailable : .ok,
                    headers: [.contentType: "text/plain; charset=utf-8", .contentLength: String(text.utf8.count)],
                    body: request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(string: text)))
            }
        }
        router.on("metrics", method: .get) { [self] _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: self.metrics.exposition())))
        }
    }

    /// The path after the group's prefix, exactly as received (percent-encoded, empty segments
    /// kept: a plain source's `http://` needs them): it starts at the signature, the
    /// catch-all's first segment.
    static func imagePath(_ request: Request, _ context: some RequestContext) -> String {
        let raw = request.uri.path
        // The catch-all's text runs from the signature to the last segment: when the path ends
        // there (no trailing slash), the image path is its last `count + 1` bytes. Byte
        // comparisons only: this runs on every request, the result-cache hits included.
        if let rest = context.parameters[Parameters.recursiveCaptureKey], !rest.isEmpty {
            let count = rest.utf8.count
            if raw.utf8.count > count, raw.utf8.suffix(count).elementsEqual(rest.utf8) {
                let start = raw.utf8.index(raw.utf8.endIndex, offsetBy: -(count + 1))
                if raw.utf8[start] == UInt8(ascii: "/") { return start == raw.startIndex ? raw : String(raw[start...]) }
            }
        }
        if let signature = context.parameters.getCatchAll().first, !signature.isEmpty,
           let range = raw.range(of: "/" + signature + "/") ?? raw.range(of: "/" + signature) {
            return String(raw[range.lowerBound...])
        }
        return raw
    }

    /// The HTTP response for `reply`, with `Content-Length`, `X-Request-ID` and
    /// `X-Content-Type-Options: nosniff`, recorded in the metrics and the access log (one line
    /// per request, at `info`). A request whose client went away (`clientGone`) is recorded
    /// with status 499, nginx's "client closed request", whatever was answered.
    func finish(
        _ reply: ServiceReply, request: Request, start: ContinuousClock.Instant, logger: Logger, clientGone: Bool = false
    ) -> Response {
        let requestID = request.headers[Self.requestIDHeader] ?? Self.makeRequestID()
        var fields = reply.fields
        fields[.contentLength] = String(reply.body.readableBytes)
        fields[Self.requestIDHeader] = requestID
        fields[.xContentTypeOptions] = "nosniff"
        let elapsed = ContinuousClock.now - start
        let recorded = clientGone ? 499 : reply.status
        metrics.recordRequest(status: recorded, duration: elapsed)
        logger.info(
            "\(request.method) \(request.uri.path) \(recorded) \(reply.body.readableBytes)B \(Self.milliseconds(elapsed))ms",
            metadata: ["request_id": .string(requestID)])
        // The connection ends after this response (HTTP/1.0, or the client asked): say so.
        if request.headers[.connection] == "close" { fields[.connection] = "close" }
        let status = HTTPResponse.Status(code: reply.status)
        // HEAD: the GET's headers, Content-Length included, and no body.
        if request.method == .head { return Response(status: status, headers: fields, body: ResponseBody()) }
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: reply.body))
    }

    static let requestIDHeader = HTTPField.Name("X-Request-ID")!

    /// A request ID unique in this process: a random prefix drawn at start and a counter
    /// (drawing random bytes per request costs a system call).
    static func makeRequestID() -> String {
        let number = requestIDs.wrappingAdd(1, ordering: .relaxed).newValue
        return String(requestIDPrefix, radix: 16).leftPadded(to: 8) + String(number & 0xFFFF_FFFF, radix: 16).leftPadded(to: 8)
    }

    private static let requestIDPrefix = UInt32.random(in: 0...UInt32.max)
    private static let requestIDs = Atomic<UInt64>(0)

    static func milliseconds(_ duration: Duration) -> Int64 { ServiceMetrics.nanoseconds(duration) / 1_000_000 }
}
