import Dispatch
import Foundation
import Synchronization
import Testing
import WebImage

/// A scripted manager: records each load and lets the test deliver its callbacks.
final class ScriptedManager: ImageManaging {
    final class Operation: ImageOperation {
        private let cancelled = Mutex(false)
        let completion: ImageCompletionHandler
        let progress: ImageProgressHandler?
        let url: URL
        init(url: URL, progress: ImageProgressHandler?, completion: @escaping ImageCompletionHandler) {
            self.url = url
            self.progress = progress
            self.completion = completion
        }
        var isCancelled: Bool { cancelled.withLock { $0 } }
        func cancel() {
            let first = cancelled.withLock { was in defer { was = true }; return !was }
            if first { completion(.failure(.cancelled)) }
        }
    }

    private let state = Mutex<(operations: [Operation], immediate: ImageResult?)>(([], nil))

    /// When set, the next load completes synchronously inside `loadImage` with this result.
    func completeNextSynchronously(with result: ImageResult) { state.withLock { $0.immediate = result } }

    var operations: [Operation] { state.withLock { $0.operations } }

    /// Drops the manager's references, as a real manager does once operations finish.
    func releaseOperations() { state.withLock { $0.operations.removeAll() } }

    func loadImage(
        with url: URL?, options: WebImageOptions, context: WebImageContext, progress: ImageProgressHandler?,
        completed: @escaping ImageCompletionHandler
    ) -> (any ImageOperation)? {
        guard let url else {
            completed(.failure(.invalidURL(nil)))
            return nil
        }
        if let immediate = state.withLock({ s -> ImageResult? in defer { s.immediate = nil }; return s.immediate }) {
            completed(.success(immediate))
            return nil
        }
        let operation = Operation(url: url, progress: progress, completion: completed)
        state.withLock { $0.operations.append(operation) }
        return operation
    }
}

/// A display target that records what it was shown.
@MainActor
final class RecordingTarget: ImageDisplayTarget {
    let webImageState = WebImageTargetState()
    var shown: [(image: Image?, transition: ImageTransition?)] = []
    var progressValues: [Double] = []
    func display(_ image: Image?, transition: ImageTransition?) { shown.append((image, transition)) }
    func displayProgress(_ fraction: Double) { progressValues.append(fraction) }
}

/// Waits until every callback already queued on the main queue has run.
@MainActor
func drainMainQueue() async {
    await withCheckedContinuation { continuation in DispatchQueue.main.async { continuation.resume() } }
}

func solidImage(_ value: UInt8) -> Image {
    Image(pixels: PixelBuffer(width: 1, height: 1, bytes: [value, value, value, 255]))
}

@MainActor
@Suite("Display-target binding (B-1, B-2)")
struct BindingTests {
    let url1 = URL(string: "https://img.example.invalid/1.png")!
    let url2 = URL(string: "https://img.example.invalid/2.png")!
    let placeholder = solidImage(7)

    @Test("Given a load in flight, when a new one starts on the same key, then the old one is cancelled (step 1)")
    func cancelsPrevious() async {
        let manager = ScriptedManager()
        let target = RecordingTarget()
        target.setImage(with: url1, manager: manager)
        target.setImage(with: url2, manager: manager)
        #expect(manager.operations[0].isCancelled)
        #expect(!manager.operations[1].isCancelled)
    }

    @Test("Given avoidAutoCancelImage, when a new load starts, then the old one keeps running")
    func avoidAutoCancel() async {
        let manager = ScriptedManager()
        let target = RecordingTarget()
        target.setImage(with: url1, manager: manager)
        target.setImage(with: url2, options: .avoidAutoCancelImage, manager: manager)
        #expect(!manager.operations[0].isCancelled)
    }

    @Test("Given a load, then the URL is recorded and the placeholder shown at once (steps 2, 3)")
    func placeholderAndURL() {
        let manager = ScriptedManager()
        let target = RecordingTarget()
        target.setImage(with: url1, placeholder: placeholder, manager: manager)
        #expect(target.webImageState.imageURL == url1)
        #expect(target.shown.count == 1 && target.shown[0].image === placeholder)
    }

    @Test("Given delayPlaceholder, then the placeholder shows only after a failure (steps 3, 5)")
    func delayPlaceholder() async {
        let manager = ScriptedManager()
        let target = RecordingTarget()
        target.setImage(with: url1, placeholder: placeholder, options: .delayPlaceholder, manager: manager)
        #expect(target.shown.isEmpty)
        manager.operations[0].completion(.failure(.invalidDownloadStatusCode(404)))
        await drainMainQueue()
        #expect(target.shown.count == 1 && target.shown[0].image === placeholder)
    }

    @Test("Given a nil URL, then the load stops with invalidURL and the manager is not asked (step 4)")
    func nilURL() async {
        let manager = ScriptedManager()
        let target = RecordingTarget()
        let outcome = Mutex<WebImageError?>(nil)
        target.setImage(with: nil, placeholder: placeholder, manager: manager, completed: { result in
            if case .failure(let error) = result { outcome.withLock { $0 = error } }
        })
        #expect(manager.operations.isEmpty)
        #expect(outcome.withLock { $0?.code } == "invalidURL")
        #expect(target.webImageState.imageURL == nil)
    }

    @Test("Given a downloaded image, then it is shown with the transition; avoidAutoSetImage only completes (steps 5, 6)")
    func successShowsImage() async {
        let manager = ScriptedManager()
        let target = RecordingTarget()
        var context = WebImageContext()
        context.imageTransition = .fade
        let image = solidImage(42)
        target.setImage(with: url1, context: context, manager: manager)
        manager.operations[0].completion(.success(ImageResult(image: image, cacheType: .none, url: url1)))
        await drainMainQueue()
        #expect(target.shown.last?.image === image)
        #expect(target.shown.last?.transition == .fade)
        #expect(target.webImageState.progress == 1)

        let quiet = RecordingTarget()
        let delivered = Mutex(false)
        quiet.setImage(with: url1, options: .avoidAutoSetImage, manager: manager, completed: { _ in delivered.withLock { $0 = true } })
        manager.operations[1].completion(.success(ImageResult(image: image, cacheType: .none, url: url1)))
        await drainMainQueue()
        #expect(quiet.shown.allSatisfy { $0.image !== image })
        #expect(delivered.withLock { $0 })
    }

    @Test("Given a memory hit, then no transition runs unless forceTransition (step 6)")
    func memoryHitTransition() async {
        let manager = ScriptedManager()
        var context = WebImageContext()
        context.imageTransition = .fade
        let image = solidImage(9)
        let plain = RecordingTarget()
        plain.setImage(with: url1, context: context, manager: manager)
        manager.operations[0].completion(.success(ImageResult(image: image, cacheType: .memory, url: url1)))
        let forced = RecordingTarget()
        forced.setImage(with: url1, options: .forceTransition, context: context, manager: manager)
        manager.operations[1].completion(.success(ImageResult(image: image, cacheType: .memory, url: url1)))
        let disk = RecordingTarget()
        disk.setImage(with: url1, context: context, manager: manager)
        manager.operations[2].completion(.success(ImageResult(image: image, cacheType: .disk, url: url1)))
        await drainMainQueue()
        #expect(plain.shown.last?.image === image && plain.shown.last?.transition == nil)
        #expect(forced.shown.last?.transition == .fade)
        #expect(disk.shown.last?.transition == .fade)
    }

    @Test("Given a reused target, when the old load finishes last, then the old image never shows (step 7)")
    func supersededNeverTouches() async {
        let manager = ScriptedManager()
        let target = RecordingTarget()
        let old = solidImage(1)
        let new = solidImage(2)
        let oldCompleted = Mutex(false)
        target.setImage(with: url1, manager: manager, completed: { _ in oldCompleted.withLock { $0 = true } })
        target.setImage(with: url2, options: .avoidAutoCancelImage, manager: manager)
        manager.operations[1].completion(.success(ImageResult(image: new, cacheType: .none, url: url2)))
        manager.operations[0].completion(.success(ImageResult(image: old, cacheType: .none, url: url1)))
        await drainMainQueue()
        #expect(target.shown.last?.image === new)
        #expect(!target.shown.contains { $0.image === old })
        #expect(oldCompleted.withLock { $0 }, "the superseded load's own completion still runs")
        #expect(target.webImageState.imageURL == url2)
    }

    @Test("Given per-state keys, then loads under different keys do not cancel each other")
    func perStateKeys() {
        let manager = ScriptedManager()
        let target = RecordingTarget()
        var normal = WebImageContext()
        normal.operationKey = "button-normal"
        var highlighted = WebImageContext()
        highlighted.operationKey = "button-highlighted"
        target.setImage(with: url1, context: normal, manager: manager)
        target.setImage(with: url2, context: highlighted, manager: manager)
        #expect(!manager.operations[0].isCancelled)
        #expect(target.webImageState.activeKeys == ["button-highlighted", "button-normal"])
        target.cancelCurrentImageLoad(forKey: "button-normal")
        #expect(manager.operations[0].isCancelled)
        #expect(!manager.operations[1].isCancelled)
    }

    @Test("Given progress, then the target sees a monotonic fraction ending at 1")
    func progressFraction() async {
        let manager = ScriptedManager()
        let target = RecordingTarget()
        target.setImage(with: url1, manager: manager)
        let operation = manager.operations[0]
        operation.progress?(25, 100, url1)
        operation.progress?(50, 100, url1)
        operation.completion(.success(ImageResult(image: solidImage(3), cacheType: .none, url: url1)))
        await drainMainQueue()
        #expect(target.progressValues == [0, 0.25, 0.5, 1])
    }

    @Test("Given a finished load, then the operation table does not keep it alive (B-2)")
    func tableIsWeak() async {
        let manager = ScriptedManager()
        let target = RecordingTarget()
        target.setImage(with: url1, manager: manager)
        #expect(target.webImageState.activeKeys == ["RecordingTarget"])
        manager.releaseOperations()
        #expect(target.webImageState.activeKeys.isEmpty)
    }

    @Test("Given a synchronous memory hit on the main thread, then the image is shown before setImage returns")
    func synchronousMemoryHit() {
        let manager = ScriptedManager()
        let target = RecordingTarget()
        let image = solidImage(5)
        manager.completeNextSynchronously(with: ImageResult(image: image, cacheType: .memory, url: url1))
        target.setImage(with: url1, placeholder: placeholder, manager: manager)
        #expect(target.shown.map { $0.image === image } == [false, true])
    }

    @Test("Given cancelCurrentImageLoad, then the caller's completion gets cancelled and the target is untouched")
    func cancelCurrent() async {
        let manager = ScriptedManager()
        let target = RecordingTarget()
        let outcome = Mutex<String?>(nil)
        target.setImage(with: url1, options: .delayPlaceholder, manager: manager, completed: { result in
            if case .failure(let error) = result { outcome.withLock { $0 = error.code } }
        })
        target.cancelCurrentImageLoad()
        await drainMainQueue()
        #expect(outcome.withLock { $0 } == "cancelled")
        #expect(target.shown.isEmpty)
    }
}
