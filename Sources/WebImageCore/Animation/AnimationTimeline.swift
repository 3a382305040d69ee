/// The timing of an animation: per-frame durations and a loop count, mapped to frame indices.
/// A pure value used by ``AnimatedImagePlayer``.
public struct AnimationTimeline: Sendable, Hashable {
    /// Display duration of each frame in seconds (each one positive).
    public let durations: [Double]
    /// How many times the animation plays; 0 = forever.
    public let loopCount: Int
    /// Running end time of each frame within one loop.
    private let ends: [Double]

    /// Creates a timeline. Durations that are not finite or are at most 10 ms become 100 ms
    /// (``FrameDelay/clamped(_:)``, the browsers' rule; decoders have normally applied it
    /// already, so this only matters for images made in memory). An empty list is one frame.
    public init(durations: [Double], loopCount: Int) {
        let cleaned = durations.isEmpty ? [FrameDelay.replacement] : durations.map { d in
            d.isFinite ? FrameDelay.clamped(d) : FrameDelay.replacement
        }
        self.durations = cleaned
        self.loopCount = max(0, loopCount)
        var total = 0.0
        self.ends = cleaned.map { d in
            total += d
            return total
        }
    }

    /// Number of frames.
    public var frameCount: Int { durations.count }
    /// Length of one loop in seconds.
    public var loopDuration: Double { ends.last ?? 0 }

    /// Where playback is after `elapsed` seconds of play: the frame to show, the loop it is in
    /// (0-based) and whether playback has ended (a finite loop count has run out; the last
    /// frame stays).
    public func position(after elapsed: Double) -> (frame: Int, loop: Int, isFinished: Bool) {
        let last = durations.count - 1
        // A still image, time not started yet (or NaN): the first frame.
        guard last > 0, elapsed > 0 else { return (0, 0, false) }
        // Durations such as 0.1 + 0.2 are not exact in binary; a nanosecond of slack makes a
        // time that lands on a frame boundary show the next frame, as intended.
        let elapsed = elapsed + 1e-9
        let loops = elapsed / loopDuration
        if loopCount > 0 && loops >= Double(loopCount) { return (last, loopCount - 1, true) }
        // Forever, but no meaningful position (time beyond 2^53 loops): the first frame.
        guard loops < 9e15 else { return (0, 0, false) }
        let loopsDone = loops.rounded(.down)
        let t = elapsed - loopsDone * loopDuration
        // First frame whose end lies after t (binary search over the running ends).
        var lo = 0
        var hi = last
        while lo < hi {
            let mid = (lo + hi) / 2
            if ends[mid] > t { hi = mid } else { lo = mid + 1 }
        }
        return (lo, Int(loopsDone), false)
    }
}
