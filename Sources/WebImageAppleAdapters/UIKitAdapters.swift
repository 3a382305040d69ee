// Apple platforms only (SPEC B-3): thin layers over the toolkit-free binding (SPEC B-1).
#if canImport(UIKit) && !os(watchOS)
    import ObjectiveC
    import UIKit
    import WebImage

    /// The address of this byte is the associated-object key of a view's binding state; the
    /// byte itself is never read or written, so sharing it is safe.
    nonisolated(unsafe) private var webImageStateKey: UInt8 = 0

    @MainActor
    private func associatedState(of object: AnyObject) -> WebImageTargetState {
        if let state = objc_getAssociatedObject(object, &webImageStateKey) as? WebImageTargetState { return state }
        let state = WebImageTargetState()
        objc_setAssociatedObject(object, &webImageStateKey, state, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
        return state
    }

    extension Image {
        /// A `UIImage` of this image: animated (frames and total duration) when it has several.
        @MainActor
        public func makeUIImage() -> UIImage? {
            let images = frames.compactMap { $0.pixels.makeCGImage(colorProfile: colorProfile).map { UIImage(cgImage: $0, scale: scale, orientation: .up) } }
            guard let first = images.first else { return nil }
            return images.count > 1 ? UIImage.animatedImage(with: images, duration: duration) : first
        }
    }

    extension UIImageView: ImageDisplayTarget {
        public var webImageState: WebImageTargetState { associatedState(of: self) }

        public func display(_ image: WebImage.Image?, transition: ImageTransition?) {
            let uiImage = image?.makeUIImage()
            guard let transition else {
                self.image = uiImage
                return
            }
            UIView.transition(with: self, duration: transition.duration, options: transition.uiKitOptions) {
                self.image = uiImage
            }
        }
    }

    extension UIButton {
        /// Loads `url` into this button's image for `state`, under its own operation key so
        /// that each state loads independently (SPEC B-1 per-state keys).
        @discardableResult
        public func setImage(
            with url: URL?, for state: UIControl.State, placeholder: WebImage.Image? = nil,
            options: WebImageOptions = [], context: WebImageContext = WebImageContext(),
            completed: ImageCompletionHandler? = nil
        ) -> (any ImageOperation)? {
            let target = ButtonStateTarget.target(for: self, state: state)
            var context = context
            context.operationKey = "UIButton-\(state.rawValue)"
            return target.setImage(with: url, placeholder: placeholder, options: options, context: context, completed: completed)
        }
    }

    /// One state of a button as a display target.
    @MainActor
    private final class ButtonStateTarget: ImageDisplayTarget {
        weak var button: UIButton?
        let state: UIControl.State
        let webImageState = WebImageTargetState()

        init(button: UIButton, state: UIControl.State) {
            self.button = button
            self.state = state
        }

        static func target(for button: UIButton, state: UIControl.State) -> ButtonStateTarget {
            let table = associatedState(of: button)
            let key = "UIButton-\(state.rawValue)"
            if let existing = table.adapterTargets[key] as? ButtonStateTarget { return existing }
            let target = ButtonStateTarget(button: button, state: state)
            table.adapterTargets[key] = target
            return target
        }

        func display(_ image: WebImage.Image?, transition: ImageTransition?) {
            button?.setImage(image?.makeUIImage(), for: state)
        }
    }

    extension ImageTransition {
        var uiKitOptions: UIView.AnimationOptions {
            switch style {
            case .fade: .transitionCrossDissolve
            case .flipFromLeft: .transitionFlipFromLeft
            case .flipFromRight: .transitionFlipFromRight
            case .curlUp: .transitionCurlUp
            case .curlDown: .transitionCurlDown
            }
        }
    }
#endif
