import Foundation

/// A running load that can be cancelled (SPEC M-10). Cancelling ends the load for this caller
/// only; its completion runs once with ``/WebImageCore/WebImageError/cancelled`` unless it already finished.
public protocol ImageOperation: AnyObject, Sendable {
    /// Cancels the load.
    func cancel()
    /// Whether ``cancel()`` was called.
    var isCancelled: Bool { get }
    /// Changes the load's download priority, up or down, while it waits in the cache query,
    /// is queued or runs (live priority, as Nuke's). A queued download starts in its new
    /// place; a download shared with other loads keeps the highest of their priorities. The
    /// last call wins, whichever thread makes it. Default: ignored.
    func setPriority(_ priority: DownloadPriority)
}

extension ImageOperation {
    /// Ignored: this operation has nothing to reprioritise.
    public func setPriority(_ priority: DownloadPriority) {}
}

/// The call shape of the pipeline: one URL in, one image out. `ImageManager` implements it;
/// display targets (the Binding layer) and the prefetcher only depend on this protocol, which
/// keeps them testable with a scripted manager.
public protocol ImageManaging: Sendable {
    /// Starts loading `url`. A `nil` URL completes at once with ``/WebImageCore/WebImageError/invalidURL(_:)``.
    /// - Returns: the running operation, or `nil` when the load finished synchronously.
    @discardableResult
    func loadImage(
        with url: URL?,
        options: WebImageOptions,
        context: WebImageContext,
        progress: ImageProgressHandler?,
        completed: @escaping ImageCompletionHandler
    ) -> (any ImageOperation)?
}
