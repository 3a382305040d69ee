/// Plays an animated image without any UI (SPEC A-1): given the time, it says which frame to
/// show and supplies its pixels.
///
/// - Time is passed in (seconds on any monotonic clock, e.g. a display link's timestamp);
///   the player has no clock of its own, so it is deterministic and testable. The first
///   ``update(at:)`` (or ``resume(at:)``) starts the clock.
/// - Per-frame durations and the loop count are honoured: after `loopCount` plays the last
///   frame stays and ``isFinished`` becomes true; `loopCount` 0 loops forever.
/// - ``pause(at:)`` / ``resume(at:)``: time does not advance while paused.
/// - Frames come either from a fully decoded ``Image`` (no buffer needed) or lazily from an
///   ``AnimatedImageSource``: frames are decoded when first shown, plus as many following
///   frames as fit in ``bufferByteLimit``; frames behind the playhead are dropped, and
///   ``clearBuffer()`` drops them all (e.g. on a memory warning or when the view goes away).
/// - ``onFrameChange`` is called whenever the shown frame changes.
///
/// Not thread-safe: one owner (typically the view that shows it) calls it from one thread,
/// as with ``AnimatedImageSource``.
public final class AnimatedImagePlayer {
    /// Frame timing and loop count.
    public let timeline: AnimationTimeline
    /// Canvas size of every frame.
    public let canvasSize: PixelSize
    /// Most bytes of decoded frames kept by a source-backed player. At least the shown frame is
    /// always kept, even if it alone is larger.
    public let bufferByteLimit: Int
    /// Called with the new frame index whenever the shown frame changes.
    public var onFrameChange: ((Int) -> Void)?

    /// The frame to show now.
    public private(set) var currentFrameIndex = 0
    /// The current loop, 0-based.
    public private(set) var currentLoop = 0
    /// Whether the loop count has run out (the last frame stays).
    public private(set) var isFinished = false
    /// Whether playback is paused.
    public private(set) var isPaused = false

    private enum Frames {
        case decoded([ImageFrame])
        case lazy(any AnimatedImageSource)
    }

    private let frames: Frames
    /// Seconds of play so far (excluding pauses).
    private var elapsed = 0.0
    /// The clock time of the last update while playing; `nil` before the clock starts.
    private var lastTime: Double?
    /// Decoded frames of a source-backed player, by index.
    private var buffer: [Int: PixelBuffer] = [:]

    /// Bytes of one canvas-sized frame.
    private var frameBytes: Int {
        let (bytes, overflow) = canvasSize.pixelCount.multipliedReportingOverflow(by: PixelBuffer.bytesPerPixel)
        return overflow ? Int.max : bytes
    }

    /// A player over an image whose frames are all decoded. A still image always shows frame 0.
    public init(image: Image) {
        self.timeline = AnimationTimeline(durations: image.frames.map(\.duration), loopCount: image.loopCount)
        self.canvasSize = image.pixelSize
        self.bufferByteLimit = 0
        self.frames = .decoded(image.frames)
    }

    /// A player that decodes frames from `source` on demand.
    /// - Parameters:
    ///   - source: the animation, read lazily (the player becomes its only user).
    ///   - bufferByteLimit: most bytes of decoded frames to keep (default 16 MiB).
    public init(source: any AnimatedImageSource, bufferByteLimit: Int = 16 * 1024 * 1024) {
        // A source without frames becomes a one-frame timeline whose frame fails to decode.
        let count = max(0, source.frameCount)
        self.timeline = AnimationTimeline(
            durations: (0..<count).map { source.duration(ofFrame: $0) }, loopCount: source.loopCount)
        self.canvasSize = source.canvasSize
        self.bufferByteLimit = max(0, bufferByteLimit)
        self.frames = .lazy(source)
    }

    /// Number of frames.
    public var frameCount: Int { timeline.frameCount }
    /// How many times the animation plays; 0 = forever.
    public var loopCount: Int { timeline.loopCount }
    /// Seconds of play so far (pauses excluded).
    public var elapsedTime: Double { elapsed }

    /// Advances the clock to `time` and returns the frame to show. Calls ``onFrameChange`` if
    /// the frame changed. Time going backwards is ignored (no advance).
    @discardableResult
    public func update(at time: Double) -> Int {
        guard time.isFinite else { return currentFrameIndex }
        if !isPaused {
            if let last = lastTime, time > last { elapsed += time - last }
            if lastTime.map({ time > $0 }) ?? true { lastTime = time }
        }
        let position = timeline.position(after: elapsed)
        currentLoop = position.loop
        isFinished = position.isFinished
        setFrame(position.frame)
        return currentFrameIndex
    }

    /// Stops the clock at `time` (the frame shown at `time` stays).
    public func pause(at time: Double) {
        guard !isPaused else { return }
        update(at: time)
        isPaused = true
    }

    /// Restarts the clock at `time`; play continues from where it was paused.
    public func resume(at time: Double) {
        guard isPaused || lastTime == nil else { return }
        isPaused = false
        lastTime = time.isFinite ? time : nil
        update(at: time)
    }

    /// Goes back to the first frame of the first loop; the next ``update(at:)`` restarts the
    /// clock. The pause state is kept.
    public func rewind() {
        elapsed = 0
        lastTime = nil
        currentLoop = 0
        isFinished = false
        setFrame(0)
    }

    /// The pixels of the frame to show now (``currentFrameIndex``), decoding it if needed and
    /// then decoding ahead as far as the buffer allows.
    /// - Throws: what the source throws for a frame it cannot decode.
    public func currentPixels() throws -> PixelBuffer {
        try pixels(ofFrame: currentFrameIndex)
    }

    /// The pixels of frame `index` (clamped to the valid range), buffering as ``currentPixels()``.
    public func pixels(ofFrame index: Int) throws -> PixelBuffer {
        let index = min(max(0, index), frameCount - 1)
        switch frames {
        case .decoded(let list):
            return list[min(index, list.count - 1)].pixels
        case .lazy(let source):
            let shown: PixelBuffer
            if let cached = buffer[index] {
                shown = cached
            } else {
                shown = try source.frame(at: index)
            }
            fillBuffer(from: index, shown: shown, source: source)
            return shown
        }
    }

    /// Drops every decoded frame (a source-backed player decodes again when asked).
    public func clearBuffer() {
        buffer.removeAll()
    }

    /// Bytes of decoded frames held in the buffer now.
    public var bufferedByteCount: Int {
        buffer.values.reduce(0) { $0 + $1.byteCount }
    }

    /// Indices of the frames held in the buffer now, ascending.
    public var bufferedFrameIndices: [Int] { buffer.keys.sorted() }

    // MARK: - Private

    private func setFrame(_ index: Int) {
        guard index != currentFrameIndex else { return }
        currentFrameIndex = index
        onFrameChange?(index)
    }

    /// Keeps `index` and the frames after it (wrapping around when the animation loops) that fit
    /// in the budget; drops the rest; decodes the missing ones in order.
    private func fillBuffer(from index: Int, shown: PixelBuffer, source: any AnimatedImageSource) {
        let count = frameCount
        let perFrame = max(1, frameBytes)
        let capacity = max(1, min(count, bufferByteLimit / perFrame))
        let wraps = loopCount == 0 || currentLoop < loopCount - 1
        var window: [Int] = []
        for step in 0..<capacity {
            let i = index + step
            if i >= count && !wraps { break }
            window.append(i % count)
        }
        let keep = Set(window)
        for key in Array(buffer.keys) where !keep.contains(key) { buffer[key] = nil }
        buffer[index] = shown
        for i in window.dropFirst() where buffer[i] == nil {
            // Decoding ahead is best effort: a bad frame is reported when it is shown.
            guard let pixels = try? source.frame(at: i) else { break }
            buffer[i] = pixels
        }
    }
}
