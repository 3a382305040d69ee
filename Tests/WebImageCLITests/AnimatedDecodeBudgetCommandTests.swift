import Foundation
import Testing
import WebImageCodecs
import WebImageCore

extension BombFixtures {
    /// An animated WebP or APNG of `frames` frames on a `canvas`×`canvas` canvas, each frame one
    /// more black pixel on white (the GIF bomb's pattern), written by our frame-by-frame encoders:
    /// decoding every composited frame costs frames × canvas² × 4 bytes (1 GiB for 4,096 frames of
    /// 256×256), holding one canvas 256 KiB.
    static func manyFrameAnimation(_ format: ImageFormat, frames: Int = 4_096, canvas: Int = 256) throws -> Data {
        let size = PixelSize(width: canvas, height: canvas)
        let encoding: any AnimatedImageEncoding = format == .webp ? WebPCoder() : PNGCoder()
        let encoder = try encoding.makeAnimatedEncoder(
            format: format, frameSize: size, loopCount: 0, hasAlpha: false, options: EncodeOptions())
        var pixels = [UInt8](repeating: 255, count: canvas * canvas * 4)
        for index in 0..<frames {
            let x = index % canvas, y = (index / canvas * 16) % canvas
            let offset = (y * canvas + x) * 4
            pixels[offset] = 0
            pixels[offset + 1] = 0
            pixels[offset + 2] = 0
            try encoder.add(PixelBuffer(width: canvas, height: canvas, bytes: pixels), duration: 0.02)
        }
        return try encoder.finish()
    }

    /// `data` (an animated WebP from ``manyFrameAnimation(_:frames:canvas:)``) with its VP8X
    /// canvas size changed to `side`×`side`: the frames still fit, and one canvas is now bigger
    /// than the decoded-bytes budget.
    static func webPWithCanvas(_ data: Data, side: Int) -> Data {
        var bytes = [UInt8](data)
        precondition(String(decoding: bytes[12..<16], as: UTF8.self) == "VP8X", "animated WebP starts with VP8X")
        for (start, value) in [(24, side - 1), (27, side - 1)] {
            bytes[start] = UInt8(value & 0xFF)
            bytes[start + 1] = UInt8((value >> 8) & 0xFF)
            bytes[start + 2] = UInt8((value >> 16) & 0xFF)
        }
        return Data(bytes)
    }
}

/// SPEC R-3 for the other animated formats: `info --decode` walks an animated WebP (libwebp's
/// `WebPAnimDecoder`) or APNG frame by frame like a GIF, holding one or two canvases, and
/// `convert` goes frame by frame from them too; the budget still refuses one canvas that is too
/// big. Memory is the child's own peak RSS (GNU `time`); times are only reported.
@Suite("webimage decode budget (R-3): animated WebP and APNG frame by frame")
struct AnimatedDecodeBudgetCommandTests {
    static let megabyte = 1024 * 1024

    static func fixture(_ format: ImageFormat, name: String) async throws -> (URL, URL) {
        let made = await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: Result { try BombFixtures.manyFrameAnimation(format) }) }.start()
        }
        return try DecodeBudgetCommandTests.file(name, try made.get())
    }

    @Test(
        "Given a 4,096-frame animated WebP or APNG of 256×256 (1 GiB of frames), when info --decode runs, then every frame decodes one at a time under 100 MB peak RSS, and convert goes frame by frame",
        .enabled(if: PeakMemoryRunner.isAvailable), arguments: ["webp", "png"])
    func manyFrameInfoAndConvert(fileExtension: String) async throws {
        let format: ImageFormat = fileExtension == "webp" ? .webp : .png
        let (file, directory) = try await Self.fixture(format, name: "frames.\(fileExtension)")
        defer { try? FileManager.default.removeItem(at: directory) }

        let info = try await PeakMemoryRunner.run(["info", "--decode", "--json", file.path])
        #expect(info.status == 0, "stdout: \(info.stdout)\nstderr: \(info.stderr)")
        let object = try InfoCommandTests.jsonObjects(info.stdout).first
        #expect(object?["frames"] as? Int == 4_096, "\(info.stdout)")
        #expect(object?["animated"] as? Bool == true)
        #expect(object?["error"] is NSNull, "\(info.stdout)")
        #expect(object?["decodeMs"] is Double)
        #expect(info.peakResidentBytes < 100 * Self.megabyte, "peak RSS \(info.peakResidentBytes / Self.megabyte) MB")
        print("info --decode 4096-frame \(fileExtension): peak RSS \(info.peakResidentBytes / Self.megabyte) MB, \(info.seconds) s")

        let output = directory.appendingPathComponent("out.gif")
        let convert = try await PeakMemoryRunner.run(["convert", file.path, output.path])
        #expect(convert.status == 0, "stderr: \(convert.stderr)")
        #expect(convert.stdout.contains("256x256, 4096 frames,"), "stdout: \(convert.stdout)")
        #expect(convert.peakResidentBytes < 300 * Self.megabyte, "peak RSS \(convert.peakResidentBytes / Self.megabyte) MB")
        print("convert 4096-frame \(fileExtension) → gif: peak RSS \(convert.peakResidentBytes / Self.megabyte) MB, \(convert.seconds) s")
    }

    @Test(
        "Given an animated WebP whose canvas alone is over the budget (9000×9000, 309 MiB), when info --decode runs, then the budget refuses it before allocating",
        .enabled(if: PeakMemoryRunner.isAvailable))
    func overBudgetCanvasRefused() async throws {
        let small = try BombFixtures.manyFrameAnimation(.webp, frames: 2, canvas: 16)
        let (file, directory) = try DecodeBudgetCommandTests.file("big.webp", BombFixtures.webPWithCanvas(small, side: 9_000))
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await PeakMemoryRunner.run(["info", "--decode", "--json", file.path])
        #expect(result.status != 0)
        let object = try InfoCommandTests.jsonObjects(result.stdout).first
        #expect(object?["width"] as? Int == 9_000, "\(result.stdout)")
        #expect(object?["frames"] as? Int == 2, "\(result.stdout)")
        let error = object?["error"] as? String ?? ""
        #expect(error.contains("decoding a 9000x9000 image needs 309 MiB"), "\(result.stdout)")
        #expect(error.contains("decoded-bytes budget is 256 MiB"), "\(result.stdout)")
        #expect(result.peakResidentBytes < 100 * Self.megabyte, "peak RSS \(result.peakResidentBytes / Self.megabyte) MB")
    }
}
