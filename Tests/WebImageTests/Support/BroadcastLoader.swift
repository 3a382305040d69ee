import Foundation
import Synchronization
@testable import WebImage

/// A loader the test drives by hand; every request of the URL gets every event.
final class BroadcastLoader: ImageLoader {
    private let completions = Mutex<[ImageLoaderCompletion]>([])
    struct Token: ImageLoaderToken { func cancel() {} }

    var requestCount: Int { completions.withLock { $0.count } }
    func canRequestImage(for url: URL) -> Bool { true }
    func requestImage(
        with url: URL, options: WebImageOptions, context: WebImageContext, progress: ImageLoaderProgress?,
        completed: @escaping ImageLoaderCompletion
    ) -> any ImageLoaderToken {
        completions.withLock { $0.append(completed) }
        return Token()
    }
    func send(_ image: Image, data: Data, finished: Bool) {
        for callback in completions.withLock({ $0 }) {
            callback(.success(ImageLoaderResult(image: image, data: data, response: nil, finished: finished)))
        }
    }
}
