import Foundation
import Testing
import WebImage
import WebImageTesting

@testable import WebImageServer

/// Shrink on load for still WebP sources (issue #15): scaled down by 2 or more, they are decoded
/// by libwebp's rescaler at an integer shrink from 2 to 8 and resampled from there; the result
/// must be the full-size path's, up to resampling. Animations decode at full size as before.
// Serialized and small: renders in a debug build are slow, and the other service suites running
// alongside have deadlines of a second or so.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ServiceWebPShrinkOnLoadTests {
    static let width = 1203, height = 797

    /// A detailed photo-like pattern (waves of several frequencies, blocks with edges a few
    /// pixels wide) as a q95 lossy WebP whose sides are no multiple of any shrink, so the reduced
    /// sides (⌈side / d⌉) are not exactly side / d and the mapping's scale matters.
    static let source: Data = {
        let pixels = PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let index = (y * width + x) * 4
                    let fx = Double(x), fy = Double(y)
                    out[index] = UInt8(clamping: Int(128 + 70 * sin(fx * 0.021 + fy * 0.006) + 40 * sin(fx * fy * 0.000005)))
                    out[index + 1] = UInt8(clamping: Int(128 + 90 * sin(fy * 0.028) * cos(fx * 0.0065)))
                    out[index + 2] = UInt8(clamping: Int(125 + 85 * tanh(5 * sin(fx * 0.0377) * sin(fy * 0.0291))))
                    out[index + 3] = 255
                }
            }
        }
        return try! CodersManager.shared.encode(
            Image(pixels: pixels, hasAlpha: false), format: .webp, options: EncodeOptions(quality: 0.95))
    }()

    /// `simple` (a `RIFF`/`WEBP` file with one `VP8 ` chunk) rewrapped as an extended (`VP8X`)
    /// file with an `EXIF` chunk carrying `orientation` after the image data.
    static func withOrientation(_ simple: Data, _ orientation: UInt8) -> Data {
        func le(_ value: Int, _ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
        func chunk(_ fourCC: String, _ payload: [UInt8]) -> [UInt8] {
            Array(fourCC.utf8) + le(payload.count, 4) + payload + (payload.count % 2 == 1 ? [0] : [])
        }
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0]
        let header: [UInt8] = [0x08, 0, 0, 0] + le(width - 1, 3) + le(height - 1, 3)
        let image = Array(simple.dropFirst(12))
        let body = Array("WEBP".utf8) + chunk("VP8X", header) + image + chunk("EXIF", tiff)
        return Data(Array("RIFF".utf8) + le(body.count, 4) + body)
    }

    /// Shared with the PNG suite, whose test image has the same size.
    static let cases: [ShrinkOnLoadCase] = [
        ShrinkOnLoadCase(options: "rs:fit:150:150", orientation: 1, scale: "1/8"),
        ShrinkOnLoadCase(options: "rs:fit:240:240", orientation: 3, scale: "1/5"),
        ShrinkOnLoadCase(options: "rs:fit:190:190", orientation: 6, scale: "1/6"),
        ShrinkOnLoadCase(options: "rs:fit:400:400", orientation: 8, scale: "1/3"),
        ShrinkOnLoadCase(options: "rs:fill:100:100/g:nowe", orientation: 5, scale: "1/7"),
        ShrinkOnLoadCase(options: "rs:fill:160:100/g:soea", orientation: 7, scale: "1/4"),
        ShrinkOnLoadCase(options: "c:600:400:ea/rs:fit:140:0", orientation: 1, scale: "1/4"),
        ShrinkOnLoadCase(options: "rs:fit:300:300/rot:90", orientation: 2, scale: "1/4"),
        ShrinkOnLoadCase(options: "rs:fit:160:160/rot:270", orientation: 6, scale: "1/7"),
        ShrinkOnLoadCase(options: "rs:force:100:300/rot:180", orientation: 4, scale: "1/2"),
        ShrinkOnLoadCase(options: "rs:fit:60:60/dpr:2/ex:1/g:so", orientation: 1, scale: "1/8"),
        ShrinkOnLoadCase(options: "rs:fit:150:150/ar:0", orientation: 6, scale: "1/8"),
        // Full size: the result depends on full-resolution pixels, or the shrink is under 2.
        ShrinkOnLoadCase(options: "rs:fit:150:150/t:10", orientation: 1, scale: "1"),
        ShrinkOnLoadCase(options: "rs:fill:100:100/g:sm", orientation: 1, scale: "1"),
        ShrinkOnLoadCase(options: "rs:fit:700:700", orientation: 6, scale: "1"),
    ]

    @Test("Given a still WebP scaled down, when served, then it is decoded reduced and looks like the full-size path", arguments: cases)
    func reducedDecodeMatchesFullDecode(_ item: ShrinkOnLoadCase) async throws {
        let data = Self.withOrientation(Self.source, item.orientation)
        let comparison = try await ShrinkOnLoadComparison.run(data, path: "/photo.webp", contentType: "image/webp", options: item.options)
        let (served, reference) = (comparison.served, comparison.reference)
        let difference = try #require(PixelDifference.between(served.pixels, reference.pixels))
        // 43.8–47.2 dB; mapping by 1/d instead of the reduced side over the stored one gives
        // 34–39 dB, and JPEG-style padding offsets on reversed axes 15–24 dB.
        #expect(difference.psnr >= 40, "\(difference)")

        #expect(comparison.decoded(at: item.scale), "\(comparison.metrics)")
    }

    @Test("Given an animated WebP scaled down, when served, then its frames are decoded at full size and all kept")
    func animationDecodesAtFullSize() async throws {
        let frames = (0..<2).map { index in
            let pixels = PixelBuffer.make(width: 160, height: 120) { out in
                for i in stride(from: 0, to: out.count, by: 4) {
                    out[i] = UInt8(index * 200); out[i + 1] = UInt8(i / 4 % 160); out[i + 2] = 60; out[i + 3] = 255
                }
            }
            return ImageFrame(pixels: pixels, duration: 0.1)
        }
        let data = try CodersManager.shared.encode(
            Image(frames: frames, loopCount: 0, hasAlpha: false), format: .webp, options: EncodeOptions(keepAnimation: true))
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/anim.webp", .ok(data, contentType: "image/webp"))
        let reply = try await harness.get(harness.plainPath("/anim.webp", options: "rs:fit:20:20", ext: "webp"))
        #expect(reply.status == 200, "\(reply.text)")
        let served = try CodersManager.shared.decode(reply.body, options: DecodeOptions())
        #expect(served.pixelSize == PixelSize(width: 20, height: 15))
        #expect(served.frames.count == 2)
        let metrics = try await harness.get("/metrics")
        #expect(metrics.text.contains("webimage_decodes_total{scale=\"1\"} 1"), "\(metrics.text)")
    }

    @Test("Given a 2400×1600 WebP shrunk to 300×200, when processed, then libwebp's 1/8 decode is the result without resampling")
    func exactEighthIsTheResult() throws {
        let pixels = PixelBuffer.make(width: 2400, height: 1600) { out in
            for index in stride(from: 0, to: out.count, by: 4) {
                out[index] = UInt8(truncatingIfNeeded: index / 4 % 2400 / 9)
                out[index + 1] = UInt8(truncatingIfNeeded: index / 9600 / 7)
                out[index + 2] = 90
                out[index + 3] = 255
            }
        }
        let data = try CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: false), format: .webp, options: EncodeOptions(quality: 0.9))
        let options = try ProcessingOptions.parse(segments: ["rs:fit:300:200"], presets: PresetTable())
        let processor = ImageProcessor()
        let decoded = try processor.decode(data, options: options, keepAnimation: false)
        #expect(decoded.reduction?.denominator == 8)
        #expect(decoded.image.pixelSize == PixelSize(width: 300, height: 200))
        let result = try processor.transform(decoded, options: options)
        #expect(result.pixels.bytes == decoded.image.pixels.bytes)
    }

    @Test("Given a WebP whose sides are no multiple of the shrink, when reduced, then every axis maps by the reduced side over the stored one, reversed or not")
    func mappingUsesTheReducedSidesScale() {
        for orientation in ImageOrientation.allCases {
            let geometry = ShrinkOnLoad(
                storedSize: PixelSize(width: 1203, height: 797), orientation: orientation, rotate: 0, decoder: WebPCoder())
            let reduction = geometry.reduction(8)
            // 1203 → 151 and 797 → 100 (⌈side / 8⌉): the full extent maps onto the whole reduced extent.
            let mapped = reduction.map(ResampleRegion(x: 0, y: 0, width: Double(geometry.fullSize.width), height: Double(geometry.fullSize.height)))
            let expected = orientation.swapsDimensions ? (100.0, 151.0) : (151.0, 100.0)
            #expect(mapped.x == 0 && mapped.y == 0, "\(orientation)")
            #expect(abs(mapped.width - expected.0) < 1e-9 && abs(mapped.height - expected.1) < 1e-9, "\(orientation): \(mapped)")
        }
    }
}
