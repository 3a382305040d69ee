import Foundation

/// How a new image appears on a display target (SPEC B-1 step 6).
public struct ImageTransition: Sendable, Hashable {
    /// What the transition looks like; toolkit adapters map it to their own animation.
    public enum Style: String, Sendable, Hashable {
        case fade
        case flipFromLeft
        case flipFromRight
        case curlUp
        case curlDown
    }

    /// The style.
    public var style: Style
    /// Duration in seconds.
    public var duration: Double

    public init(style: Style = .fade, duration: Double = 0.25) {
        self.style = style
        self.duration = duration
    }

    /// A quarter-second cross-fade.
    public static let fade = ImageTransition()
}

/// Anything that can show an image: a view, a button state, a GTK widget, a terminal preview,
/// a test double (SPEC B-1). Conform, keep a ``WebImageTargetState``, and call
/// ``setImage(with:placeholder:options:context:manager:progress:completed:)-(_,Image?,_,_,_,_,_)``.
///
/// Targets live on the main actor, as UI toolkits require; the binding hops there for every
/// callback.
@MainActor
public protocol ImageDisplayTarget: AnyObject {
    /// The binding's bookkeeping for this target (operations by key, current URL, progress).
    var webImageState: WebImageTargetState { get }
    /// Shows `image` (`nil` clears), with `transition` when one applies.
    func display(_ image: Image?, transition: ImageTransition?)
    /// Called as the download progresses, with a fraction 0…1. Default: nothing.
    func displayProgress(_ fraction: Double)
}

extension ImageDisplayTarget {
    public func displayProgress(_ fraction: Double) {}
}

/// The transition a target uses for images that did not come from memory.
private enum ImageTransitionKey: WebImageContextKey { typealias Value = ImageTransition }
/// The manager a target loads through instead of the default.
private enum CustomManagerKey: WebImageContextKey { typealias Value = any ImageManaging }

extension WebImageContext {
    /// The transition to run when a display target shows a loaded image (SPEC B-1 step 6).
    public var imageTransition: ImageTransition? {
        get { self[ImageTransitionKey.self] }
        set { self[ImageTransitionKey.self] = newValue }
    }
    /// The manager to load through instead of the default one (SPEC M-5).
    public var customManager: (any ImageManaging)? {
        get { self[CustomManagerKey.self] }
        set { self[CustomManagerKey.self] = newValue }
    }
}
