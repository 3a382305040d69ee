import Foundation

/// Optional decisions an ``ImageManager`` asks of its delegate (SPEC M-3, M-8).
public protocol ImageManagerDelegate: AnyObject, Sendable {
    /// Whether `url` may be downloaded when it is not cached (default `true`).
    func imageManager(_ manager: ImageManager, shouldDownloadImageFor url: URL) -> Bool
    /// Whether a failure of `url` with `error` puts it on the failed-URL list (default `true`;
    /// transient errors are never listed whatever this says).
    func imageManager(_ manager: ImageManager, shouldBlockFailedURL url: URL, error: WebImageError) -> Bool
}

extension ImageManagerDelegate {
    public func imageManager(_ manager: ImageManager, shouldDownloadImageFor url: URL) -> Bool { true }
    public func imageManager(_ manager: ImageManager, shouldBlockFailedURL url: URL, error: WebImageError) -> Bool {
        true
    }
}
