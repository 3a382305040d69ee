// Apple platforms only (SPEC B-3): a thin layer over the toolkit-free binding (SPEC B-1).
#if canImport(AppKit) && !targetEnvironment(macCatalyst)
    import AppKit
    import ObjectiveC
    import WebImage

    /// The address of this byte is the associated-object key of a view's binding state; the
    /// byte itself is never read or written, so sharing it is safe.
    nonisolated(unsafe) private var webImageStateKey: UInt8 = 0

    extension NSImageView: ImageDisplayTarget {
        public var webImageState: WebImageTargetState {
            if let state = objc_getAssociatedObject(self, &webImageStateKey) as? WebImageTargetState { return state }
            let state = WebImageTargetState()
            objc_setAssociatedObject(self, &webImageStateKey, state, .OBJC_ASSOCIATION_RETAIN_NONATOMIC)
            return state
        }

        public func display(_ image: WebImage.Image?, transition: ImageTransition?) {
            guard let image, let cgImage = image.makeCGImage() else {
                self.image = nil
                return
            }
            let size = NSSize(width: Double(image.width) / image.scale, height: Double(image.height) / image.scale)
            let nsImage = NSImage(cgImage: cgImage, size: size)
            guard let transition else {
                self.image = nsImage
                return
            }
            NSAnimationContext.runAnimationGroup { context in
                context.duration = transition.duration
                self.animator().image = nsImage
            }
        }
    }
#endif
