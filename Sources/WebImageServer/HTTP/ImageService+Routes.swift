import Foundation
import HTTPTypes
import Hummingbird
import Logging

extension ImageService {
    /// Adds the image routes (`GET`/`HEAD` of `/{signature}/{options}/{source}` under the
    /// group's path) to a router or router group of the caller's application (SPEC V-1).
    ///
    /// ```swift
    /// let router = Router()
    /// service.addRoutes(to: router.group("images"))
    /// ```
    public func addRoutes<Methods: RouterMethods>(to router: Methods, logger: Logger = Logger(label: "webimage.server")) {
        for method in [HTTPRequest.Method.get, .head] {
            router.on("**", method: method) { [self] request, context in
                // V-8: a client that closes its connection cancels its request, which frees
                // its admission place (and a shared fetch/render once no caller is left).
                // Watching the inbound stream consumes it, so Hummingbird closes the connection
                // after the response: say so (`Connection: close`), or a keep-alive client could
                // send its next request on a connection that is closing.
                var response = try await request.body.consumeWithCancellationOnInboundClose { _ in
                    try await self.respond(to: request, context: context, logger: logger)
                }
                response.headers[.connection] = "close"
                return response
            }
        }
    }

    /// Adds `/health` (200 ready, 503 draining) and `/metrics` (Prometheus text).
    public func addOperationRoutes<Methods: RouterMethods>(to router: Methods) {
        router.on("health", method: .get) { [self] _, _ in
            let draining = self.isDraining
            return Response(
                status: draining ? .serviceUnavailable : .ok,
                headers: [.contentType: "text/plain; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: draining ? "draining\n" : "ok\n")))
        }
        router.on("metrics", method: .get) { [self] _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: self.metrics.exposition())))
        }
    }

    func respond(to request: Request, context: some RequestContext, logger: Logger) async throws -> Response {
        let start = ContinuousClock.now
        let requestID = request.headers[.init("X-Request-ID")!] ?? Self.makeRequestID()
        // The path after the group's prefix, exactly as received (percent-encoded, empty
        // segments kept: a plain source's `http://` needs them): it starts at the signature,
        // the catch-all's first segment.
        let raw = request.uri.path
        var path = raw
        if let signature = context.parameters.getCatchAll().first, !signature.isEmpty,
           let range = raw.range(of: "/" + signature + "/") ?? raw.range(of: "/" + signature) {
            path = String(raw[range.lowerBound...])
        }
        let serviceResponse = await respond(
            path: path, accept: request.headers[.accept], ifNoneMatch: request.headers[.ifNoneMatch],
            head: false)
        var headers = HTTPFields()
        for (name, value) in serviceResponse.headers {
            if let field = HTTPField.Name(name) { headers.append(HTTPField(name: field, value: value)) }
        }
        headers[.contentLength] = String(serviceResponse.body.count)
        headers[.init("X-Request-ID")!] = requestID
        metrics.recordRequest(status: serviceResponse.status, duration: ContinuousClock.now - start)
        logger.info(
            "\(request.method) \(request.uri.path) \(serviceResponse.status) \(serviceResponse.body.count)B \(Self.milliseconds(ContinuousClock.now - start))ms",
            metadata: ["request_id": .string(requestID)])
        if request.method == .head {
            // HEAD: the GET's headers, Content-Length included, and no body.
            return Response(status: HTTPResponse.Status(code: serviceResponse.status), headers: headers, body: ResponseBody())
        }
        return Response(
            status: HTTPResponse.Status(code: serviceResponse.status), headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: serviceResponse.body)))
    }

    static func makeRequestID() -> String {
        String(UInt64.random(in: 0...UInt64.max), radix: 16).leftPadded(to: 16)
    }

    static func milliseconds(_ duration: Duration) -> Int64 { ServiceMetrics.nanoseconds(duration) / 1_000_000 }
}
