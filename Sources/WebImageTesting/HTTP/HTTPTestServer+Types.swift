import Foundation

extension HTTPTestServer {
    /// A request as the server received it.
    public struct Request: Sendable {
        /// `GET`, `HEAD`, …
        public var method: String
        /// The path without the query (`/images/a.png`).
        public var path: String
        /// The full request target (`/images/a.png?x=1`).
        public var uri: String
        /// The header fields, in order.
        public var headers: [(name: String, value: String)]
        /// The protocol the request arrived on.
        public var protocolVersion: ProtocolVersion

        /// The first value of the header `name` (case-insensitive).
        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// What the server does with one request: a scripted response.
    public struct Response: Sendable {
        /// What to do on the connection.
        public enum Action: Sendable {
            /// Send the response (head, body, end).
            case respond
            /// Close the connection without sending anything.
            case close
        }

        /// What to do on the connection (default: respond).
        public var action: Action = .respond
        /// The status code.
        public var status: Int = 200
        /// Header fields to send. `Content-Length` is added from the body unless
        /// ``declaredLength`` or ``chunked`` say otherwise.
        public var headers: [(name: String, value: String)] = []
        /// The body bytes.
        public var body: Data = Data()
        /// Wait this long before sending the head. A delay is no synchronisation: a test that
        /// needs the response to be still pending holds it at a ``gate`` instead.
        public var headDelay: Duration = .zero
        /// Wait for this gate to open before sending the head.
        public var gate: Gate?
        /// Hold the rest of the body at a gate once part of it has been sent.
        public var bodyPause: BodyPause?
        /// Send the body in pieces of this many bytes (`nil`: one piece).
        public var chunkSize: Int?
        /// Wait this long between pieces (to spread a body out; a test that needs the body to
        /// be part-way uses ``bodyPause``).
        public var chunkDelay: Duration = .zero
        /// Wait for this gate to open after the first piece, before the rest: a client provably
        /// holds part of the body (for progress and partial images) until the test opens it.
        public var bodyGate: Gate?
        /// Use chunked transfer encoding instead of `Content-Length`.
        public var chunked = false
        /// Announce this `Content-Length` instead of the body's size. Larger than the body:
        /// the body is sent and then the connection is closed (a truncated response).
        public var declaredLength: Int?
        /// End the connection abnormally (``Action/close`` or a truncated body) with a TCP
        /// reset (RST, `SO_LINGER` 0) instead of an orderly close (FIN). Over HTTP/2 both end
        /// only the request's stream, with `RST_STREAM`.
        public var reset = false

        /// A response with `status`, `headers` and `body` (or another `action`).
        public init(
            status: Int = 200, headers: [(name: String, value: String)] = [], body: Data = Data(),
            action: Action = .respond
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.action = action
        }

        /// 200 with `body` and a `Content-Type`.
        public static func ok(_ body: Data, contentType: String = "application/octet-stream") -> Response {
            Response(status: 200, headers: [("Content-Type", contentType)], body: body)
        }

        /// A bodiless response with `status`.
        public static func status(_ status: Int) -> Response {
            Response(status: status)
        }

        /// A redirect to `location` (a path on this server or an absolute URL).
        public static func redirect(to location: String, status: Int = 302) -> Response {
            Response(status: status, headers: [("Location", location)])
        }

        /// Closes the connection without answering.
        public static let close = Response(action: .close)

        /// Resets the connection (RST) without answering.
        public static let reset = Response(action: .close).with { $0.reset = true }

        /// A copy with changes applied.
        public func with(_ change: (inout Response) -> Void) -> Response {
            var copy = self
            change(&copy)
            return copy
        }
    }

    /// Where a response's body stops until a gate opens: the first ``afterBytes`` bytes are sent
    /// (and flushed), the rest waits for ``gate``. A test can then act while a download is
    /// provably part-way — cancel it, or see a partial image — instead of hoping a slow body is
    /// slow enough.
    public struct BodyPause: Sendable {
        /// How many body bytes are sent before the pause (less than the body's size).
        public var afterBytes: Int
        /// What the rest of the body waits for.
        public var gate: Gate

        /// A pause after `afterBytes` body bytes until `gate` opens.
        public init(afterBytes: Int, gate: Gate) {
            self.afterBytes = afterBytes
            self.gate = gate
        }
    }

    /// Decides the response to a request.
    public typealias Handler = @Sendable (Request) -> Response

    /// A handler serving `body` with validators: answers 304 (no body) when the request's
    /// `If-None-Match` equals `entityTag` or its `If-Modified-Since` equals `lastModified`.
    public static func conditional(
        _ body: Data, entityTag: String?, lastModified: String?, contentType: String = "application/octet-stream"
    ) -> Handler {
        { request in
            var validators: [(name: String, value: String)] = []
            if let entityTag { validators.append(("ETag", entityTag)) }
            if let lastModified { validators.append(("Last-Modified", lastModified)) }
            let tagMatches = entityTag != nil && request.header("If-None-Match") == entityTag
            let dateMatches = lastModified != nil && request.header("If-Modified-Since") == lastModified
            if tagMatches || dateMatches {
                return Response(status: 304, headers: validators)
            }
            return Response(status: 200, headers: [("Content-Type", contentType)] + validators, body: body)
        }
    }

    /// A handler serving `body` with byte ranges, as a server that supports resumption does.
    ///
    /// Every response carries `Accept-Ranges: bytes`, the given validators and `date` as its
    /// `Date` header when given. A request with
    /// `Range: bytes=<first>-` or `bytes=<first>-<last>` gets `206 Partial Content` with that
    /// part and a `Content-Range`, unless its `If-Range` names neither validator (then `200`
    /// with the whole body, as RFC 9110 says); a range starting at or beyond the end gets `416`
    /// with `Content-Range: bytes */<size>`. Other `Range` forms are ignored (`200`).
    public static func ranges(
        _ body: Data, entityTag: String?, lastModified: String?, date: String? = nil,
        contentType: String = "application/octet-stream"
    ) -> Handler {
        { request in
            var headers: [(name: String, value: String)] = [("Content-Type", contentType), ("Accept-Ranges", "bytes")]
            if let entityTag { headers.append(("ETag", entityTag)) }
            if let lastModified { headers.append(("Last-Modified", lastModified)) }
            if let date { headers.append(("Date", date)) }
            let whole = Response(status: 200, headers: headers, body: body)
            guard let range = request.header("Range"), range.hasPrefix("bytes=") else { return whole }
            if let condition = request.header("If-Range"), condition != entityTag, condition != lastModified {
                return whole
            }
            let bounds = range.dropFirst("bytes=".count).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = Int(bounds[0]), first >= 0 else { return whole }
            guard first < body.count else {
                return Response(status: 416, headers: headers + [("Content-Range", "bytes */\(body.count)")])
            }
            let last = bounds[1].isEmpty ? body.count - 1 : min(Int(bounds[1]) ?? body.count - 1, body.count - 1)
            guard last >= first else { return whole }
            let part = body.subdata(in: body.startIndex + first..<body.startIndex + last + 1)
            return Response(
                status: 206, headers: headers + [("Content-Range", "bytes \(first)-\(last)/\(body.count)")], body: part)
        }
    }
}
