import Foundation
import NIOHTTP1

/// Where a redirect response points, read the way AsyncHTTPClient reads it.
enum RedirectTarget {
    /// The absolute `Location` of a 301, 302, 303, 305, 307 or 308 response, resolved against
    /// `url`; `nil` for other statuses or a missing or unparsable `Location`.
    static func url(status: HTTPResponseStatus, headers: HTTPHeaders, from url: URL) -> URL? {
        switch status {
        case .movedPermanently, .found, .seeOther, .useProxy, .temporaryRedirect, .permanentRedirect:
            return location(headers, from: url)
        default:
            return nil
        }
    }

    /// The URL the client goes on to request after this response: the `Location` of a 301,
    /// 302, 303, 304, 305, 307 or 308 response (the client treats a `304` with a `Location` as
    /// a redirect too) when it is an `http` or `https` URL, the only redirects it follows from
    /// those schemes; `nil` when the response is final.
    static func followed(status: HTTPResponseStatus, headers: HTTPHeaders, from url: URL) -> URL? {
        switch status {
        case .movedPermanently, .found, .seeOther, .notModified, .useProxy, .temporaryRedirect, .permanentRedirect:
            guard let target = location(headers, from: url), let scheme = target.scheme?.lowercased(),
                scheme == "http" || scheme == "https"
            else { return nil }
            return target
        default:
            return nil
        }
    }

    private static func location(_ headers: HTTPHeaders, from url: URL) -> URL? {
        guard let location = headers.first(name: "Location") else { return nil }
        return URL(string: location, relativeTo: url)?.absoluteURL
    }
}
