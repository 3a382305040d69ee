import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// Animated sources answered as AVIF image sequences (SPEC V-6): every frame and every delay
/// survives, read back by our decoder and by libavif's own `avifdec`.
@Suite struct ServiceAnimatedAVIFTests {
    /// Five frames of different colours and different delays (multiples of 10 ms, which GIF,
    /// WebP and APNG all store exactly).
    static let delays = [0.1, 0.25, 0.04, 0.5, 0.12]

    static func frames(width: Int = 48, height: Int = 32) -> Image {
        let list = delays.enumerated().map { index, delay in
            let shade = UInt8(index * 255 / (delays.count - 1))
            let pixels = PixelBuffer.make(width: width, height: height) { out in
                for i in stride(from: 0, to: out.count, by: 4) {
                    out[i] = shade; out[i + 1] = 255 - shade; out[i + 2] = 40; out[i + 3] = 255
                }
            }
            return ImageFrame(pixels: pixels, duration: delay)
        }
        return Image(frames: list, loopCount: 0, hasAlpha: false)
    }

    static func source(_ format: ImageFormat) throws -> Data {
        try CodersManager.shared.encode(frames(), format: format, options: EncodeOptions(keepAnimation: true))
    }

    @Test("Given an animated GIF, WebP or APNG, when asked for AVIF, then every frame and delay survives in an image sequence",
          arguments: [(ImageFormat.gif, "image/gif"), (.webp, "image/webp"), (.png, "image/png")])
    func animatedSourceBecomesImageSequence(format: ImageFormat, contentType: String) async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        let source = try Self.source(format)
        #expect(try CodersManager.shared.decode(source, options: DecodeOptions()).frames.count == Self.delays.count)
        harness.origin.route("/anim", .ok(source, contentType: contentType))
        let reply = try await harness.get(harness.plainPath("/anim", options: "w:24", ext: "avif"))
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.header("Content-Type") == "image/avif")
        let image = try TestImages.decode(reply.body)
        #expect(image.format == .avif)
        #expect(image.frames.count == Self.delays.count)
        #expect(image.width == 24 && image.height == 16)
        for (frame, delay) in zip(image.frames, Self.delays) {
            #expect(abs(frame.duration - delay) < 0.0015, "\(frame.duration) for \(delay)")
        }
        // The frames stay in order: red rises, green falls.
        let reds = image.frames.map { Int($0.pixels.pixel(x: 12, y: 8).r) }
        #expect(reds == reds.sorted() && reds.last! - reds.first! > 200, "\(reds)")
        let info = try AVIFDecTool.info(reply.body)
        #expect(info.frameCount == Self.delays.count, "\(info.text)")
        #expect(info.durations.count == Self.delays.count, "\(info.text)")
        for (seen, delay) in zip(info.durations, Self.delays) {
            #expect(abs(seen - delay) < 0.0015, "\(info.text)")
        }
    }

    @Test("Given an animation over the service's frame limit, when asked for AVIF, then it is refused before decoding")
    func frameLimitHolds() async throws {
        let harness = try await ServiceHarness.start { $0.limits.maxAnimationFrames = 4 }
        defer { Task { await harness.stop() } }
        harness.origin.route("/anim.gif", .ok(try Self.source(.gif), contentType: "image/gif"))
        let reply = try await harness.get(harness.plainPath("/anim.gif", ext: "avif"))
        #expect(reply.status == 413, "\(reply.status) \(reply.text)")
        #expect(reply.text.contains("5 frames exceed 4"), "\(reply.text)")
        let within = try await ServiceHarness.start { $0.limits.maxAnimationFrames = 5 }
        defer { Task { await within.stop() } }
        within.origin.route("/anim.gif", .ok(try Self.source(.gif), contentType: "image/gif"))
        let kept = try await within.get(within.plainPath("/anim.gif", ext: "avif"))
        #expect(kept.status == 200)
        #expect(try TestImages.decode(kept.body).frames.count == 5)
    }

    @Test("Given a still source, when asked for AVIF, then the answer is a still AVIF")
    func stillStaysStill() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 40, height: 30), contentType: "image/png"))
        let reply = try await harness.get(harness.plainPath("/src.png", ext: "avif"))
        #expect(reply.status == 200)
        #expect(try AVIFDecTool.info(reply.body).frameCount == 1)
        #expect(try TestImages.decode(reply.body).frames.count == 1)
    }
}

/// `avifdec --info` (Debian libavif-bin, installed by scripts/setup.sh): libavif's own reading of
/// a file's image count and per-image durations.
enum AVIFDecTool {
    struct Info {
        var text: String
        var frameCount: Int
        var durations: [Double]
    }

    static func info(_ data: Data) throws -> Info {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("avifdec-\(UUID().uuidString).avif")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/avifdec")
        process.arguments = ["--info", file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: output, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw AVIFDecToolError(reason: "avifdec --info exited \(process.terminationStatus): \(text)")
        }
        return Info(text: text, frameCount: imageCount(text), durations: durations(text))
    }

    /// ` * 1000 timescales per second, 0.52 seconds (520 timescales), 6 frames`.
    private static func imageCount(_ text: String) -> Int {
        for line in text.split(separator: "\n") where line.contains("timescales per second") {
            let words = line.split(separator: " ")
            if let index = words.lastIndex(where: { $0.hasPrefix("frame") }), index > 0, let count = Int(words[index - 1]) {
                return count
            }
        }
        return 0
    }

    /// `   * Decoded frame [2] [pts 0.20 (200 timescales)] [duration 0.02 (20 timescales)] [64x48]`, in
    /// order, in seconds (the files this service writes count 1000 timescales per second).
    private static func durations(_ text: String) -> [Double] {
        text.split(separator: "\n").compactMap { line -> Double? in
            guard line.contains("Decoded frame"), let range = line.range(of: "[duration ") else { return nil }
            guard let open = line[range.upperBound...].firstIndex(of: "(") else { return nil }
            let digits = line[line.index(after: open)...].prefix { $0.isNumber }
            return Double(digits).map { $0 / 1000 }
        }
    }
}

struct AVIFDecToolError: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
