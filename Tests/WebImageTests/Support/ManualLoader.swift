import Foundation
import Synchronization
@testable import WebImage

/// A loader the test drives by hand: partial images, then the final one.
final class ManualLoader: ImageLoader {
    private let completion = Mutex<ImageLoaderCompletion?>(nil)
    struct Token: ImageLoaderToken { func cancel() {} }

    var hasRequest: Bool { completion.withLock { $0 != nil } }
    func canRequestImage(for url: URL) -> Bool { true }
    func requestImage(
        with url: URL, options: WebImageOptions, context: WebImageContext, progress: ImageLoaderProgress?,
        completed: @escaping ImageLoaderCompletion
    ) -> any ImageLoaderToken {
        completion.withLock { $0 = completed }
        return Token()
    }
    func send(_ image: Image, finished: Bool) {
        let callback = completion.withLock { $0 }
        callback?(.success(ImageLoaderResult(image: image, data: Data([1, 2, 3]), response: nil, finished: finished)))
    }
}
