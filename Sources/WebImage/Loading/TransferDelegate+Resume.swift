import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// Resuming a download (SPEC X-3): which responses can be resumed, with which validator, and
/// whether a `206` continues the partial body.
extension TransferDelegate {
    /// The head callers see for a response to a resumed request: for a `206` continuing
    /// `resumed` exactly, the whole representation's (status 200, the total `Content-Length`,
    /// no `Content-Range`); `nil` for a `200` (a new body: the partial one is dropped).
    /// - Throws: ``ResumeRejected`` for any other answer.
    static func continuation(of resumed: ResumableDataStore.Entry, in head: HTTPResponseHead) throws -> HTTPResponseHead? {
        switch head.status {
        case .ok:
            return nil
        case .partialContent:
            guard let value = head.headers.first(name: "Content-Range"), let range = ContentRange(value),
                range.first == Int64(resumed.data.count), range.last == range.total - 1, range.total == resumed.totalSize,
                head.headers.first(name: "Content-Encoding").map({ $0.lowercased() == "identity" }) ?? true,
                Self.sameRepresentation(head.headers, as: resumed)
            else { throw ResumeRejected() }
            var whole = head
            whole.status = .ok
            whole.headers.remove(name: "Content-Range")
            whole.headers.replaceOrAdd(name: "Content-Length", value: String(range.total))
            return whole
        default:
            throw ResumeRejected()
        }
    }

    /// Whether a `206`'s validators name the representation `resumed` came from: a server may
    /// ignore `If-Range` and send a range of a changed image, which must not be joined. The
    /// `206` must carry the same kind of validator (RFC 9110 §15.3.7 requires it to), and equal.
    static func sameRepresentation(_ headers: HTTPHeaders, as resumed: ResumableDataStore.Entry) -> Bool {
        let name = resumed.validatorIsEntityTag ? "ETag" : "Last-Modified"
        return headers.first(name: name) == resumed.validator
    }

    /// The validator to send in `If-Range` when resuming a response with `head`, or `nil` when
    /// it cannot be resumed: a 200 with byte ranges offered (or one continuing `resumed`), a
    /// length, no content coding, and a strong validator (RFC 9110 §13.1.5) — a strong `ETag`,
    /// or without any `ETag` a `Last-Modified` at least 60 s older than the `Date`.
    static func resumeValidator(_ head: HTTPResponseHead, resumed: ResumableDataStore.Entry?) -> (value: String, isEntityTag: Bool)? {
        let headers = head.headers
        guard head.status == .ok, headers.first(name: "Content-Length") != nil,
            headers.first(name: "Content-Encoding").map({ $0.lowercased() == "identity" }) ?? true
        else { return nil }
        if resumed == nil {
            guard headers[canonicalForm: "Accept-Ranges"].contains(where: { $0.lowercased() == "bytes" }) else { return nil }
        }
        if let tag = headers.first(name: "ETag") {
            // A client holding an entity tag must not send a date; a weak tag cannot be used.
            return tag.hasPrefix("W/") ? nil : (tag, true)
        }
        if let modified = headers.first(name: "Last-Modified"), let modifiedSeconds = HTTPDate.seconds(modified),
            let date = headers.first(name: "Date").flatMap(HTTPDate.seconds), modifiedSeconds <= date - 60
        {
            return (modified, false)
        }
        return resumed.map { ($0.validator, $0.validatorIsEntityTag) }
    }
}
