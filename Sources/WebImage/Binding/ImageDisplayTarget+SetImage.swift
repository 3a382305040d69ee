import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

extension ImageDisplayTarget {
    /// The operation key a load uses when the context gives none: the target's type name.
    public var defaultOperationKey: String { String(describing: type(of: self)) }

    /// Loads `url` and shows it on this target: SDWebImage's `sd_setImageWithURL` (SPEC B-1).
    ///
    /// 1. Cancels the previous load under the same operation key (`context.operationKey`, default
    ///    the target's type name; use per-state keys such as `"button-normal"`), unless
    ///    `.avoidAutoCancelImage`.
    /// 2. Records `url` as ``WebImageTargetState/imageURL``.
    /// 3. Shows `placeholder` at once, unless `.delayPlaceholder`.
    /// 4. A `nil` URL stops here and completes with ``/WebImageCore/WebImageError/invalidURL(_:)``.
    /// 5. Shows the loaded image unless `.avoidAutoSetImage` (then only `completed` gets it); on
    ///    failure with `.delayPlaceholder`, shows the placeholder.
    /// 6. Runs `context.imageTransition` only for images that did not come from memory, or
    ///    always with `.forceTransition`.
    /// 7. A load superseded by a newer one on the same key never touches the target.
    ///
    /// `completed` runs on the main actor for every load, superseded or not.
    @discardableResult
    public func setImage(
        with url: URL?,
        placeholder: Image? = nil,
        options: WebImageOptions = [],
        context: WebImageContext = WebImageContext(),
        manager: (any ImageManaging)? = nil,
        progress: ImageProgressHandler? = nil,
        completed: ImageCompletionHandler? = nil
    ) -> (any ImageOperation)? {
        let state = webImageState
        let key = context.operationKey ?? defaultOperationKey
        if !options.contains(.avoidAutoCancelImage) {
            state.cancelOperation(forKey: key)
        }
        let generation = state.beginLoad(forKey: key)
        state.imageURL = url
        if !options.contains(.delayPlaceholder) {
            display(placeholder, transition: nil)
        }
        guard let url else {
            if options.contains(.delayPlaceholder) { display(placeholder, transition: nil) }
            state.finish(generation, forKey: key)
            completed?(.failure(.invalidURL(nil)))
            return nil
        }
        let loader = context.customManager ?? manager ?? WebImageDefaults.manager
        state.progress = 0
        displayProgress(0)

        let binding = TargetBinding(
            target: self, key: key, generation: generation, placeholder: placeholder, options: options,
            transition: context.imageTransition)
        let gate = SynchronousDeliveryGate()
        let operation = loader.loadImage(
            with: url, options: options, context: context,
            progress: { received, expected, url in
                progress?(received, expected, url)
                DispatchQueue.main.async {
                    MainActor.assumeIsolated { binding.progress(received: received, expected: expected) }
                }
            },
            completed: { result in
                // A memory hit delivered synchronously on the main thread is shown at once
                // (no placeholder flicker in reused cells); everything else hops to the main
                // queue, which keeps deliveries in order.
                if gate.isInsideCall {
                    MainActor.assumeIsolated {
                        binding.complete(result)
                        completed?(result)
                    }
                } else {
                    DispatchQueue.main.async {
                        MainActor.assumeIsolated {
                            binding.complete(result)
                            completed?(result)
                        }
                    }
                }
            })
        gate.close()
        state.register(operation, generation: generation, forKey: key)
        return operation
    }

    /// Loads `url` and shows it on this target, showing `placeholder` meanwhile: a BlurHash
    /// or ThumbHash string is decoded into a small image first (an invalid string shows no
    /// placeholder). Otherwise exactly
    /// ``setImage(with:placeholder:options:context:manager:progress:completed:)-(_,Image?,_,_,_,_,_)``.
    ///
    /// ```swift
    /// target.setImage(with: url, placeholder: .blurHash("LEHV6nWB2yk8pyo0adR*.7kCMdnj"))
    /// ```
    @discardableResult
    public func setImage(
        with url: URL?,
        placeholder: DisplayPlaceholder,
        options: WebImageOptions = [],
        context: WebImageContext = WebImageContext(),
        manager: (any ImageManaging)? = nil,
        progress: ImageProgressHandler? = nil,
        completed: ImageCompletionHandler? = nil
    ) -> (any ImageOperation)? {
        setImage(
            with: url, placeholder: placeholder.makeImage(), options: options, context: context, manager: manager,
            progress: progress, completed: completed)
    }

    /// Cancels the load under `key` (default: the target's type name).
    public func cancelCurrentImageLoad(forKey key: String? = nil) {
        webImageState.cancelOperation(forKey: key ?? defaultOperationKey)
    }
}

/// Tells a delivery made synchronously inside `loadImage`, on the thread that called
/// `setImage` (which is on the main actor), from any other delivery.
private final class SynchronousDeliveryGate: Sendable {
    private let callingThread = Mutex<pthread_t?>(pthread_self())

    /// Whether the caller is the `setImage` thread and `loadImage` has not returned yet.
    var isInsideCall: Bool {
        callingThread.withLock { thread in
            guard let thread else { return false }
            return pthread_equal(thread, pthread_self()) != 0
        }
    }

    /// Marks `loadImage` as returned.
    func close() { callingThread.withLock { $0 = nil } }
}

/// What one `setImage` call needs when its callbacks arrive on the main actor.
@MainActor
private final class TargetBinding: Sendable {
    weak var target: (any ImageDisplayTarget)?
    let key: String
    let generation: UInt64
    let placeholder: Image?
    let options: WebImageOptions
    let transition: ImageTransition?

    init(
        target: any ImageDisplayTarget, key: String, generation: UInt64, placeholder: Image?,
        options: WebImageOptions, transition: ImageTransition?
    ) {
        self.target = target
        self.key = key
        self.generation = generation
        self.placeholder = placeholder
        self.options = options
        self.transition = transition
    }

    /// The target, if this load is still the current one on it (SPEC B-1 step 7).
    private var currentTarget: (any ImageDisplayTarget)? {
        guard let target, target.webImageState.isCurrent(generation, forKey: key) else { return nil }
        return target
    }

    func progress(received: Int64, expected: Int64?) {
        guard let target = currentTarget else { return }
        let fraction: Double
        if let expected, expected > 0 {
            fraction = min(1, max(0, Double(received) / Double(expected)))
        } else {
            fraction = 0
        }
        guard fraction >= target.webImageState.progress else { return }
        target.webImageState.progress = fraction
        target.displayProgress(fraction)
    }

    func complete(_ result: Result<ImageResult, WebImageError>) {
        guard let target = currentTarget else { return }
        switch result {
        case .success(let value):
            if value.isFinal {
                target.webImageState.progress = 1
                target.displayProgress(1)
            }
            if !options.contains(.avoidAutoSetImage), let image = value.image {
                let animate = value.isFinal && (value.cacheType != .memory || options.contains(.forceTransition))
                target.display(image, transition: animate ? transition : nil)
            }
            if value.isFinal { target.webImageState.finish(generation, forKey: key) }
        case .failure(let error):
            if error.code != WebImageError.cancelled.code && options.contains(.delayPlaceholder) {
                target.display(placeholder, transition: nil)
            }
            target.webImageState.finish(generation, forKey: key)
        }
    }
}
