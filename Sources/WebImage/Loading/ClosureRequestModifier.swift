import Foundation

/// A ``DownloaderRequestModifier`` made of a closure, for headers every request needs (an API
/// key, a tracing header).
///
/// ```swift
/// var configuration = ImageDownloaderConfiguration()
/// configuration.requestModifier = ClosureRequestModifier { request in
///     var request = request
///     request.setValue("key-123", forHeader: "X-Api-Key")
///     return request
/// }
/// ```
public struct ClosureRequestModifier: DownloaderRequestModifier {
    private let body: RequestModifier

    /// A modifier that runs `body`; `body` returning `nil` refuses the request (the download
    /// fails with ``/WebImageCore/WebImageError/invalidDownloadOperation(reason:)``).
    public init(_ body: @escaping RequestModifier) {
        self.body = body
    }

    /// The closure's request.
    public func modify(_ request: ImageDownloadRequest) throws -> ImageDownloadRequest {
        guard let modified = body(request) else {
            throw WebImageError.invalidDownloadOperation(reason: "the downloader's request modifier returned nil")
        }
        return modified
    }
}
