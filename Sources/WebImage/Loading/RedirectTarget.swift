import Foundation
import NIOHTTP1

/// Where a redirect response points, read the way AsyncHTTPClient reads it.
enum RedirectTarget {
    /// The absolute `Location` of a 301, 302, 303, 305, 307 or 308 response, resolved against
    /// `url`; `nil` for other statuses or a missing or unparsable `Location`.
    static func url(status: HTTPResponseStatus, headers: HTTPHeaders, from url: URL) -> URL? {
        switch status {
        case .movedPermanently, .found, .seeOther, .useProxy, .temporaryRedirect, .permanentRedirect:
            guard let location = headers.first(name: "Location") else { return nil }
            return URL(string: location, relativeTo: url)?.absoluteURL
        default:
            return nil
        }
    }
}
