/// One frame of an image: its pixels and, for animations, how long it is shown.
///
/// Frames of one ``Image`` all have the image's canvas size; animation frames are already
/// composited (disposal and blending applied), so each frame can be shown on its own.
public struct ImageFrame: Sendable {
    /// The frame's pixels (shared, never copied).
    public let pixels: PixelBuffer
    /// Display duration in seconds (0 for still images). Decoders apply the clamping rule of
    /// their format (see ``FrameDelay``).
    public let duration: Double

    public init(pixels: PixelBuffer, duration: Double = 0) {
        self.pixels = pixels
        self.duration = duration
    }
}

/// The rule for very short animation frame delays, as browsers apply it.
///
/// Chrome, Firefox and Safari show GIF frames whose delay is 10 ms or less (including 0) for
/// 100 ms. The same rule is applied to APNG and animated WebP frames by this library so that
/// playback speed never depends on the container format.
public enum FrameDelay {
    /// Delays at or below this many seconds are treated as too short.
    public static let minimumHonoured: Double = 0.010
    /// What a too-short delay becomes.
    public static let replacement: Double = 0.100

    /// Applies the browser rule to a delay in seconds.
    public static func clamped(_ seconds: Double) -> Double {
        seconds <= minimumHonoured ? replacement : seconds
    }
}
