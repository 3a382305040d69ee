import Testing
import WebImageCore

/// A lazily decoding source for tests: counts decodes, can fail a frame.
final class FakeAnimatedSource: AnimatedImageSource {
    let canvasSize = PixelSize(width: 4, height: 4)
    let durations: [Double]
    let loopCount: Int
    var decodeCount = 0
    var failingFrame: Int?

    init(durations: [Double], loopCount: Int) {
        self.durations = durations
        self.loopCount = loopCount
    }

    var frameCount: Int { durations.count }
    func duration(ofFrame index: Int) -> Double { durations[index] }
    func frame(at index: Int) throws -> PixelBuffer {
        if index == failingFrame { throw WebImageError.badImageData(reason: "test frame \(index)") }
        decodeCount += 1
        return TransformFixtures.pattern(width: 4, height: 4, seed: index)
    }
}

@Suite("Animated image player")
struct AnimatedImagePlayerTests {
    /// Frames of 0.1, 0.2, 0.3 s (one loop = 0.6 s), loop count 3.
    let image = TransformFixtures.animation()

    @Test("Given per-frame durations, when the clock advances, then the frame follows them")
    func frameForTime() {
        let player = AnimatedImagePlayer(image: image)
        #expect(player.update(at: 100) == 0)
        #expect(player.update(at: 100.05) == 0)
        #expect(player.update(at: 100.15) == 1)
        #expect(player.update(at: 100.35) == 2)
        #expect(player.update(at: 100.65) == 0)
        #expect(player.currentLoop == 1)
        #expect(player.update(at: 100.75) == 1)
    }

    @Test("Given a timeline, when asked for positions, then frames and loops are exact")
    func timelinePositions() {
        let timeline = AnimationTimeline(durations: [0.1, 0.2, 0.3], loopCount: 2)
        #expect(timeline.position(after: 0).frame == 0)
        #expect(timeline.position(after: 0.1).frame == 1)
        #expect(timeline.position(after: 0.29).frame == 1)
        #expect(timeline.position(after: 0.3).frame == 2)
        #expect(timeline.position(after: 0.7).loop == 1)
        #expect(timeline.position(after: 1.2).isFinished)
        #expect(timeline.position(after: .nan).frame == 0)
        #expect(timeline.position(after: .infinity).isFinished)
        // Too-short or broken durations follow the browsers' rule.
        #expect(AnimationTimeline(durations: [0, 0.005, .nan, 0.05], loopCount: 0).durations == [0.1, 0.1, 0.1, 0.05])
    }

    @Test("Given loop count 3, when played past three loops, then the last frame stays and playback is finished")
    func loopCountHonoured() {
        let player = AnimatedImagePlayer(image: image)
        player.update(at: 0)
        #expect(player.update(at: 1.75) == 2)
        #expect(!player.isFinished)
        #expect(player.update(at: 1.8) == 2)
        #expect(player.isFinished)
        #expect(player.update(at: 50) == 2)
        #expect(player.currentLoop == 2)
    }

    @Test("Given loop count 0, when played for a long time, then it keeps looping")
    func loopsForever() {
        let forever = Image(frames: image.frames, loopCount: 0)
        let player = AnimatedImagePlayer(image: forever)
        player.update(at: 0)
        #expect(player.update(at: 600.15) == 1)
        #expect(!player.isFinished)
        #expect(player.currentLoop == 1000)
    }

    @Test("Given a paused player, when time passes, then the frame does not advance until resumed")
    func pauseResume() {
        let player = AnimatedImagePlayer(image: image)
        player.update(at: 10)
        player.pause(at: 10.15)
        #expect(player.isPaused)
        #expect(player.currentFrameIndex == 1)
        #expect(player.update(at: 20) == 1)
        player.resume(at: 30)
        #expect(player.update(at: 30.1) == 1)
        #expect(player.update(at: 30.2) == 2)
        #expect(abs(player.elapsedTime - 0.35) < 1e-9)
    }

    @Test("Given time going backwards, when updated, then playback does not move")
    func backwardsTimeIgnored() {
        let player = AnimatedImagePlayer(image: image)
        player.update(at: 5)
        player.update(at: 5.35)
        #expect(player.update(at: 1) == 2)
        #expect(player.update(at: .nan) == 2)
    }

    @Test("Given an observer, when the frame changes, then it is told each new index once")
    func observerCalled() {
        let player = AnimatedImagePlayer(image: image)
        var seen: [Int] = []
        player.onFrameChange = { seen.append($0) }
        player.update(at: 0)
        player.update(at: 0.05)
        player.update(at: 0.15)
        player.update(at: 0.16)
        player.update(at: 0.35)
        player.update(at: 0.65)
        player.rewind()
        #expect(seen == [1, 2, 0])
        player.update(at: 1)
        player.update(at: 1.15)
        #expect(seen == [1, 2, 0, 1])
    }

    @Test("Given a still image, when played, then frame 0 is always shown")
    func stillImage() throws {
        let player = AnimatedImagePlayer(image: Image(pixels: TransformFixtures.pattern(width: 2, height: 2)))
        player.update(at: 0)
        #expect(player.update(at: 1000) == 0)
        #expect(try player.currentPixels().width == 2)
    }

    @Test("Given a lazy source and a three-frame budget, when played, then the buffer stays within budget")
    func bufferBounded() throws {
        let source = FakeAnimatedSource(durations: Array(repeating: 0.1, count: 10), loopCount: 0)
        let frameBytes = 4 * 4 * 4
        let player = AnimatedImagePlayer(source: source, bufferByteLimit: 3 * frameBytes)
        #expect(player.bufferedByteCount == 0)
        player.update(at: 0)
        for step in 0..<40 {
            let index = player.update(at: Double(step) * 0.1 + 0.05)
            let pixels = try player.currentPixels()
            #expect(pixels.bytes == TransformFixtures.pattern(width: 4, height: 4, seed: index).bytes)
            #expect(player.bufferedByteCount <= 3 * frameBytes)
            #expect(player.bufferedFrameIndices.contains(index))
        }
        // Decoded ahead: three frames in the buffer (current + two next, wrapping).
        #expect(player.bufferedFrameIndices.count == 3)
        // Each frame decoded once per loop (4 loops of 10), plus the two decoded ahead.
        #expect(source.decodeCount == 42)
        player.clearBuffer()
        #expect(player.bufferedByteCount == 0)
        #expect(try player.currentPixels().width == 4)
    }

    @Test("Given a budget smaller than a frame, when played, then only the shown frame is kept")
    func tinyBudget() throws {
        let source = FakeAnimatedSource(durations: [0.1, 0.1, 0.1], loopCount: 0)
        let player = AnimatedImagePlayer(source: source, bufferByteLimit: 10)
        player.update(at: 0)
        _ = try player.currentPixels()
        #expect(player.bufferedFrameIndices == [0])
    }

    @Test("Given a source whose frame fails, when that frame is shown, then the error is thrown")
    func decodeErrorSurfaces() throws {
        let source = FakeAnimatedSource(durations: [0.1, 0.1, 0.1], loopCount: 1)
        source.failingFrame = 1
        let player = AnimatedImagePlayer(source: source, bufferByteLimit: 1 << 20)
        player.update(at: 0)
        _ = try player.currentPixels()
        player.update(at: 0.15)
        #expect(throws: WebImageError.self) { try player.currentPixels() }
        player.update(at: 0.25)
        #expect(try player.currentPixels().width == 4)
        #expect(player.frameCount == 3)
        #expect(player.loopCount == 1)
    }
}
