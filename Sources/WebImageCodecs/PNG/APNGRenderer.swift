import WebImageCore

/// Decodes and composites the frames of an animation in order. Restarting is the only way back.
struct APNGRenderer {
    let animation: APNGAnimation
    let header: PNGHeader
    let limits: DecodeLimits
    private var compositor: APNGCompositor
    /// The index of the frame the next call to ``next(in:)`` renders.
    private(set) var nextIndex = 0

    init(animation: APNGAnimation, header: PNGHeader, limits: DecodeLimits) {
        self.animation = animation
        self.header = header
        self.limits = limits
        compositor = APNGCompositor(width: header.width, height: header.height)
    }

    /// Whether every frame has been rendered.
    var isAtEnd: Bool { nextIndex >= animation.frames.count }

    /// Renders the next frame and returns the composited canvas.
    /// - Parameter bytes: the file the animation was read from.
    mutating func next(in bytes: UnsafeRawBufferPointer) throws -> PixelBuffer {
        guard nextIndex < animation.frames.count else {
            throw WebImageError.badImageData(reason: "APNG: no frame \(nextIndex)")
        }
        let frame = animation.frames[nextIndex]
        let pixels = try APNGFrameDecoding.decode(frame, of: animation, header: header, in: bytes, limits: limits)
        nextIndex += 1
        return compositor.render(pixels, control: frame.control)
    }

    /// Goes back to before the first frame (clears the canvas).
    mutating func restart() {
        compositor = APNGCompositor(width: header.width, height: header.height)
        nextIndex = 0
    }
}
