import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// SPEC R-3: the decoded-bytes budget, counted from headers before allocation, and lazy frame
/// access that stays within one or two canvases.
@Suite("Decode budget (R-3)")
struct DecodeBudgetTests {
    /// A GIF of `frames` 1×1 frames on a `canvas`² screen.
    static func gif(frames: Int, canvas: Int) -> Data {
        var bytes: [UInt8] = Array("GIF89a".utf8)
        bytes += [UInt8(canvas & 0xFF), UInt8(canvas >> 8), UInt8(canvas & 0xFF), UInt8(canvas >> 8), 0x80, 0, 0]
        bytes += [0, 0, 0, 255, 255, 255]
        for index in 0..<frames {
            bytes += [0x21, 0xF9, 0x04, 0x00, 0x02, 0x00, 0x00, 0x00]
            let x = index % canvas
            bytes += [0x2C, UInt8(x & 0xFF), UInt8(x >> 8), 0, 0, 1, 0, 1, 0, 0]
            bytes += [0x02, 0x02, 0x44, 0x01, 0x00]
        }
        bytes.append(0x3B)
        return Data(bytes)
    }

    static func reason(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch WebImageError.imageTooLarge(let reason) {
            return reason
        } catch {
            return "unexpected: \(error)"
        }
    }

    @Test("Given 4,096 frames of a 256×256 canvas (1 GiB decoded), then a full decode is refused from the header, naming the need and the budget")
    func manyFramesRefused() {
        let data = Self.gif(frames: 4_096, canvas: 256)
        let reason = Self.reason { _ = try GIFCoder().decode(data, options: .default) }
        #expect(reason == "decoding 4096 frames of 256x256 needs 1.0 GiB; the decoded-bytes budget is 256 MiB")
    }

    @Test("Given the same GIF, then the first frame alone and lazy frame-by-frame access both work")
    func lazyAccessWorks() throws {
        let data = Self.gif(frames: 4_096, canvas: 256)
        var first = DecodeOptions()
        first.firstFrameOnly = true
        #expect(try GIFCoder().decode(data, options: first).frames.count == 1)
        let source = try GIFCoder().makeAnimatedSource(data, options: .default)
        #expect(source.frameCount == 4_096)
        for index in [0, 1, 2, 4_095] { #expect(try source.frame(at: index).width == 256) }
    }

    @Test("Given a budget, then a still over it is refused and one under it decodes")
    func stillBudget() throws {
        var options = DecodeOptions()
        options.limits.maxDecodedBytes = 64 * 64 * 4 - 1
        let data = Self.gif(frames: 1, canvas: 64)
        #expect(Self.reason { _ = try GIFCoder().decode(data, options: options) }
            == "decoding a 64x64 image needs 16 KiB; the decoded-bytes budget is 16 KiB")
        options.limits.maxDecodedBytes = 64 * 64 * 4 * 3  // the frame, the canvas and the disposal copy
        #expect(try GIFCoder().decode(data, options: options).width == 64)
    }

    @Test("Given a budget that the header check passes, then the count while frames are produced (canvases included) still stops the decode")
    func countedWhileProduced() {
        var options = DecodeOptions()
        // 4 frames of 32² pass the header check (4 × 4 KiB = 16 KiB) but not the running count,
        // which adds the composited canvas and its disposal copy.
        options.limits.maxDecodedBytes = 4 * 32 * 32 * 4
        let reason = Self.reason { _ = try GIFCoder().decode(Self.gif(frames: 4, canvas: 32), options: options) }
        #expect(reason?.contains("need more than the decoded-bytes budget of 16 KiB") == true, "\(reason ?? "decoded")")
    }

    @Test("Given the ratio guard, then a tiny file that decodes huge is refused, and with the guard off it decodes")
    func ratioGuard() throws {
        let data = Self.gif(frames: 1, canvas: 1_000)  // ~50 bytes → 4 MB
        var options = DecodeOptions()
        options.limits.maxDecodedToEncodedRatio = 1_000
        let reason = Self.reason { _ = try CodersManager(coders: [GIFCoder()]).decode(data, options: options) }
        #expect(reason?.contains("the decompression ratio limit is 1000") == true, "\(reason ?? "decoded")")
        options.limits.maxDecodedToEncodedRatio = nil
        #expect(try CodersManager(coders: [GIFCoder()]).decode(data, options: options).width == 1_000)
    }

    @Test(
        "Given every corpus image that must decode, then its size and frames fit the default limits and budget (no decode needed: the manifest says what the header says)",
        .enabled(if: Corpus.isAvailable))
    func corpusFitsDefaultBudget() throws {
        let mustDecode = Corpus.manifest.filter { $0.expected == "decodes" }
        #expect(mustDecode.count > 100)
        for entry in mustDecode {
            guard let width = entry.width, let height = entry.height else { continue }
            let size = PixelSize(width: width, height: height)
            let frames = max(1, entry.frames ?? 1)
            #expect(throws: Never.self, "\(entry.path)") {
                try DecodeLimits.default.check(canvas: size)
                try DecodeLimits.default.check(frames: frames, of: size)
                // GIF also counts the composited canvas and its disposal copy while decoding.
                if entry.format == "GIF" { try DecodeLimits.default.checkBudget(frames: frames, of: size, extraCanvases: 2) }
            }
        }
    }
}

/// The budget counts what a decoder that shrinks while decoding really allocates.
@Suite("Decode budget with shrink-on-load (R-3)")
struct DecodeBudgetShrinkTests {
    @Test(
        "Given a 5250×3450 JPEG (69 MiB decoded) and a 10 MiB budget, then a full decode is refused and a DCT-scaled thumbnail decodes",
        .enabled(if: Corpus.isAvailable))
    func jpegThumbnailWithinBudget() throws {
        let data = try Corpus.data("sdwebimage/TestImageLarge.jpg")
        guard CodersManager.shared.canDecode(data) else { return }
        var options = DecodeOptions()
        options.limits.maxDecodedBytes = 10 << 20
        #expect(DecodeBudgetTests.reason { _ = try CodersManager.shared.decode(data, options: options) }?
            .contains("needs 69 MiB; the decoded-bytes budget is 10 MiB") == true)
        options.thumbnailPixelSize = PixelSize(width: 256, height: 256)
        let thumbnail = try CodersManager.shared.decode(data, options: options)
        #expect(max(thumbnail.width, thumbnail.height) == 256)
    }

    @Test("Given the split check, then the pixel limit applies to the canvas and the budget to the allocation")
    func splitCheck() throws {
        var limits = DecodeLimits()
        limits.maxDecodedBytes = 1_000
        try limits.check(canvas: PixelSize(width: 1_000, height: 1_000), allocating: PixelSize(width: 10, height: 10))
        #expect(throws: WebImageError.self) {
            try limits.check(canvas: PixelSize(width: 1_000, height: 1_000), allocating: PixelSize(width: 16, height: 16))
        }
        limits.maxPixelCount = 100
        #expect(throws: WebImageError.self) {
            try limits.check(canvas: PixelSize(width: 1_000, height: 1_000), allocating: PixelSize(width: 1, height: 1))
        }
    }
}
