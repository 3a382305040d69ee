import CoreMetrics
import Foundation

extension ImageManager {
    /// Loads `url` with a completion handler (SPEC M-1…M-11).
    ///
    /// - Parameters:
    ///   - url: the image's URL; `nil`, empty or scheme-less URLs complete at once with
    ///     ``/WebImageCore/WebImageError/invalidURL(_:)``.
    ///   - options: SDWebImage's options (``WebImageOptions``).
    ///   - context: typed per-request values (``WebImageContext``).
    ///   - progress: download progress, on the callback queue.
    ///   - completed: the outcome, on the callback queue (see ``ImageCompletionHandler`` for the
    ///     exactly-once rule and its two exceptions).
    /// - Returns: the load, cancellable; cancelling completes it with `cancelled`.
    @discardableResult
    public func loadImage(
        with url: URL?,
        options: WebImageOptions = [],
        context: WebImageContext = WebImageContext(),
        progress: ImageProgressHandler? = nil,
        completed: @escaping ImageCompletionHandler
    ) -> (any ImageOperation)? {
        start(url, options: options, context: context, progress: progress, completed: completed, ended: nil)
    }

    /// ``loadImage(with:options:context:progress:completed:)`` for a URL string (SPEC M-2): a
    /// string that is not a URL completes with `invalidURL`.
    @discardableResult
    public func loadImage(
        with urlString: String,
        options: WebImageOptions = [],
        context: WebImageContext = WebImageContext(),
        progress: ImageProgressHandler? = nil,
        completed: @escaping ImageCompletionHandler
    ) -> (any ImageOperation)? {
        guard let url = URL(string: urlString) else {
            let error = rejectedURLString(urlString)
            let queue = context.callbackQueue ?? callbackQueue
            queue.execute { completed(.failure(error)) }
            return nil
        }
        return loadImage(with: url, options: options, context: context, progress: progress, completed: completed)
    }

    /// The error for a string that is not a loadable URL, counted as a request that failed.
    func rejectedURLString(_ urlString: String) -> WebImageError {
        let error = WebImageError.invalidURL(urlString)
        metrics.requests.increment()
        metrics.failure(error)
        return error
    }

    /// A URL the pipeline can take: it has a scheme (RFC 3986: a letter, then letters, digits,
    /// `+`, `-` or `.`, then `:`). Checked on the string, which is cheaper than parsing `scheme`.
    static func isLoadable(_ url: URL) -> Bool {
        var utf8 = url.absoluteString.utf8.makeIterator()
        guard let first = utf8.next(), (first | 0x20) >= UInt8(ascii: "a"), (first | 0x20) <= UInt8(ascii: "z") else {
            return false
        }
        while let byte = utf8.next() {
            switch byte {
            case UInt8(ascii: ":"): return true
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."):
                continue
            default: return false
            }
        }
        return false
    }
}
