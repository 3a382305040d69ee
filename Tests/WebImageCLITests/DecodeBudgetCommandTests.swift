import Foundation
import Testing

/// SPEC R-3 through the tool: the 4,096-frame GIF and the 9400×9400 PNG of issue #12, measured
/// as the child's own peak RSS. Memory bounds are asserted; times are only reported.
@Suite("webimage decode budget (R-3): peak memory of hostile images")
struct DecodeBudgetCommandTests {
    static let megabyte = 1024 * 1024

    /// Writes `data` under a fresh directory; returns the file and the directory.
    static func file(_ name: String, _ data: Data) throws -> (URL, URL) {
        let directory = try CLIRunner.temporaryDirectory()
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return (url, directory)
    }

    /// ``file(_:_:)`` with the bytes made by `make` on a thread of its own: building the
    /// 9400×9400 PNG bit by bit takes seconds in a debug build, which must not hold one of the
    /// few threads of the shared concurrency pool that every other async test (and the
    /// loopback servers' handlers) runs on.
    static func file(_ name: String, making make: @escaping @Sendable () -> Data) async throws -> (URL, URL) {
        let data = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: make()) }.start()
        }
        return try file(name, data)
    }

    @Test(
        "Given a 94 KB GIF of 4,096 frames of 1×1 on a 256×256 canvas, when info --decode runs, then every frame decodes one at a time under 100 MB peak RSS",
        .enabled(if: PeakMemoryRunner.isAvailable))
    func manyFrameGIFInfo() async throws {
        let (gif, directory) = try await Self.file("frames.gif") { BombFixtures.manyFrameGIF() }
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await PeakMemoryRunner.run(["info", "--decode", "--json", gif.path])
        #expect(result.status == 0, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
        let object = try InfoCommandTests.jsonObjects(result.stdout).first
        #expect(object?["frames"] as? Int == 4_096)
        #expect(object?["error"] is NSNull)
        #expect(object?["decodeMs"] is Double)
        #expect(result.peakResidentBytes < 100 * Self.megabyte, "peak RSS \(result.peakResidentBytes / Self.megabyte) MB")
        print("info --decode 4096-frame GIF: peak RSS \(result.peakResidentBytes / Self.megabyte) MB, \(result.seconds) s")
    }

    @Test(
        "Given the 4,096-frame GIF, when converted, then it goes frame by frame: every frame is written under 300 MB peak RSS",
        .enabled(if: PeakMemoryRunner.isAvailable), arguments: ["gif", "webp", "png"])
    func manyFrameGIFConvert(format: String) async throws {
        let (gif, directory) = try await Self.file("frames.gif") { BombFixtures.manyFrameGIF() }
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.\(format)")
        let result = try await PeakMemoryRunner.run(["convert", gif.path, output.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("256x256, 4096 frames,"), "stdout: \(result.stdout)")
        let info = try await CLIRunner.run(["info", "--json", output.path])
        let object = try InfoCommandTests.jsonObjects(info.stdout).first
        #expect(object?["frames"] as? Int == 4_096, "info: \(info.stdout)")
        #expect(result.peakResidentBytes < 300 * Self.megabyte, "peak RSS \(result.peakResidentBytes / Self.megabyte) MB")
        print("convert 4096-frame GIF → \(format): peak RSS \(result.peakResidentBytes / Self.megabyte) MB, \(result.seconds) s")
    }

    @Test(
        "Given GIFs of 64 and 960 frames of 256×256, when converted to WebP, then peak RSS does not grow with the frame count",
        .enabled(if: PeakMemoryRunner.isAvailable))
    func convertMemoryIndependentOfFrameCount() async throws {
        var peaks: [Int] = []
        for frames in [64, 960] {
            let (gif, directory) = try await Self.file("frames.gif") { BombFixtures.manyFrameGIF(frames: frames) }
            defer { try? FileManager.default.removeItem(at: directory) }
            let output = directory.appendingPathComponent("out.webp")
            let result = try await PeakMemoryRunner.run(["convert", gif.path, output.path])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.contains("\(frames) frames,"), "stdout: \(result.stdout)")
            peaks.append(result.peakResidentBytes)
        }
        // Holding every frame would add 896 × 256 KiB = 224 MiB; frame by frame adds the
        // encoder's compressed output only.
        #expect(peaks[1] - peaks[0] < 32 * Self.megabyte, "peaks \(peaks.map { $0 / Self.megabyte }) MB")
    }

    @Test("Given a 9400×9400 PNG (1.6 MB, under the pixel limit), when converted, then the budget refuses it clearly before allocating, under 300 MB peak RSS",
        .enabled(if: PeakMemoryRunner.isAvailable))
    func largeCanvasPNG() async throws {
        let (png, directory) = try await Self.file("big.png") { BombFixtures.blackPNG() }
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("out.png")
        let result = try await PeakMemoryRunner.run(["convert", png.path, output.path])
        #expect(result.status != 0)
        #expect(result.stderr.contains("decoding a 9400x9400 image needs 337 MiB"), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("decoded-bytes budget is 256 MiB"))
        #expect(result.peakResidentBytes < 300 * Self.megabyte, "peak RSS \(result.peakResidentBytes / Self.megabyte) MB")
        print("convert 9400x9400 PNG: refused, peak RSS \(result.peakResidentBytes / Self.megabyte) MB, \(result.seconds) s")
    }

    @Test("Given the 4,096-frame GIF and --first-frame, when converted to PNG, then one frame is written",
        .enabled(if: PeakMemoryRunner.isAvailable))
    func manyFrameGIFFirstFrame() async throws {
        let (gif, directory) = try await Self.file("frames.gif") { BombFixtures.manyFrameGIF() }
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("first.png")
        let result = try await PeakMemoryRunner.run(["convert", gif.path, output.path, "--first-frame"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("256x256, 1 frame,"), "stdout: \(result.stdout)")
        #expect(result.peakResidentBytes < 100 * Self.megabyte, "peak RSS \(result.peakResidentBytes / Self.megabyte) MB")
    }
}
