import Foundation
import Synchronization

/// Chains loaders (SPEC D-1): a request goes to the first loader, in order, whose
/// `canRequestImage(for:)` accepts the URL. The default chain is the local loader
/// (`file:`, `data:`) then ``ImageDownloader/shared`` (`http:`, `https:`).
public final class LoadersManager: ImageLoader {
    private let loaders: Mutex<[any ImageLoader]>

    /// A manager asking `loaders` in order.
    public init(loaders: [any ImageLoader] = [LocalImageLoader(), ImageDownloader.shared]) {
        self.loaders = Mutex(loaders)
    }

    /// The loaders in the order they are asked.
    public var allLoaders: [any ImageLoader] { loaders.withLock { $0 } }

    /// Adds `loader` to the front: it is asked before the others.
    public func addLoader(_ loader: any ImageLoader) {
        loaders.withLock { $0.insert(loader, at: 0) }
    }

    /// Removes every loader for which `predicate` is true.
    public func removeLoaders(where predicate: (any ImageLoader) -> Bool) {
        loaders.withLock { $0.removeAll(where: predicate) }
    }

    /// The loader that handles `url`, if any.
    public func loader(for url: URL) -> (any ImageLoader)? {
        allLoaders.first { $0.canRequestImage(for: url) }
    }

    public func canRequestImage(for url: URL) -> Bool {
        loader(for: url) != nil
    }

    /// Forwards to the first loader that handles `url`; with none, completes at once with
    /// ``/WebImageCore/WebImageError/unsupportedURL(scheme:)`` (SPEC R-5;
    /// ``/WebImageCore/WebImageError/invalidURL(_:)`` when the URL has no scheme).
    public func requestImage(
        with url: URL,
        options: WebImageOptions,
        context: WebImageContext,
        progress: ImageLoaderProgress?,
        completed: @escaping ImageLoaderCompletion
    ) -> any ImageLoaderToken {
        guard let loader = loader(for: url) else {
            completed(.failure(ImageLoaders.unsupportedURLError(url)))
            return CompletedToken()
        }
        return loader.requestImage(with: url, options: options, context: context, progress: progress, completed: completed)
    }

    /// Asks the loader that handles `url`; the default rule when none does.
    public func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool {
        loader(for: url)?.shouldBlockFailedURL(url, error: error) ?? ImageLoaders.defaultShouldBlockFailedURL(error)
    }
}

/// The token of a request that completed synchronously: cancelling does nothing.
struct CompletedToken: ImageLoaderToken {
    func cancel() {}
}
