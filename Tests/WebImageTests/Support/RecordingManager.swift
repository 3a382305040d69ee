import Foundation
import Synchronization
@testable import WebImage

/// A manager that records each load's settings and lets the test end it.
final class RecordingManager: ImageManaging {
    struct Load: Sendable {
        let url: URL
        let options: WebImageOptions
        let thumbnail: PixelSize?
        let completion: ImageCompletionHandler
    }
    final class Operation: ImageOperation {
        private let cancelled = Mutex(false)
        func cancel() { cancelled.withLock { $0 = true } }
        var isCancelled: Bool { cancelled.withLock { $0 } }
    }
    private let state = Mutex<[Load]>([])
    var loads: [Load] { state.withLock { $0 } }
    func loadImage(
        with url: URL?, options: WebImageOptions, context: WebImageContext, progress: ImageProgressHandler?,
        completed: @escaping ImageCompletionHandler
    ) -> (any ImageOperation)? {
        guard let url else { return nil }
        state.withLock {
            $0.append(Load(url: url, options: options, thumbnail: context.imageThumbnailPixelSize, completion: completed))
        }
        return Operation()
    }
}
