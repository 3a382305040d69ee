import Foundation
import Testing
import WebImage
import WebImageTesting

@testable import WebImageServer

/// Shrink on load for PNG sources (issue #15): a still, non-interlaced PNG scaled down by 2 or
/// more is decoded row by row into d×d block averages (d from 2 to 8) and resampled from there;
/// the result must be the full-size path's, up to resampling. Interlaced files, trim and smart
/// gravity decode at full size as before.
// Serialized and small: renders in a debug build are slow, and the other service suites running
// alongside have deadlines of a second or so.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ServicePNGShrinkOnLoadTests {
    static let width = 1203, height = 797

    /// A detailed photo-like RGBA pattern (waves of several frequencies, edges a few pixels
    /// wide) with an alpha that fades across the image and fully transparent, brightly coloured
    /// stripes, whose sides are no multiple of any shrink (the last blocks are partial).
    static let source: Data = {
        let pixels = PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let index = (y * width + x) * 4
                    let fx = Double(x), fy = Double(y)
                    if (x / 37 + y / 53) % 7 == 3 {
                        out[index] = 255; out[index + 1] = 0; out[index + 2] = 255; out[index + 3] = 0
                        continue
                    }
                    out[index] = UInt8(clamping: Int(128 + 70 * sin(fx * 0.021 + fy * 0.006) + 40 * sin(fx * fy * 0.000005)))
                    out[index + 1] = UInt8(clamping: Int(128 + 90 * sin(fy * 0.028) * cos(fx * 0.0065)))
                    out[index + 2] = UInt8(clamping: Int(125 + 85 * tanh(5 * sin(fx * 0.0377) * sin(fy * 0.0291))))
                    out[index + 3] = UInt8(clamping: 255 - x * 200 / width)
                }
            }
        }
        return try! CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: true), format: .png, options: EncodeOptions())
    }()

    /// `png` with an `eXIf` chunk carrying `orientation` right after IHDR.
    static func withOrientation(_ png: Data, _ orientation: UInt8) -> Data {
        guard orientation != 1 else { return png }
        func be(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * (3 - $0))) } }
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0]
        let typeAndData = Array("eXIf".utf8) + tiff
        let chunk = be(tiff.count) + typeAndData + be(Int(CRC32.checksum(typeAndData)))
        let bytes = [UInt8](png)
        return Data(bytes[0..<33] + chunk + bytes[33...])
    }

    /// `pixels` with each colour multiplied by its alpha (alpha kept).
    static func premultiplied(_ pixels: PixelBuffer) -> PixelBuffer {
        PixelBuffer.make(width: pixels.width, height: pixels.height) { out in
            for index in stride(from: 0, to: out.count, by: 4) {
                let alpha = Int(pixels.bytes[index + 3])
                for channel in 0..<3 { out[index + channel] = UInt8((Int(pixels.bytes[index + channel]) * alpha + 127) / 255) }
                out[index + 3] = UInt8(alpha)
            }
        }
    }

    static let cases = ServiceWebPShrinkOnLoadTests.cases

    @Test("Given an RGBA PNG scaled down, when served, then it is decoded reduced and looks like the full-size path", arguments: cases)
    func reducedDecodeMatchesFullDecode(_ item: ShrinkOnLoadCase) async throws {
        let data = Self.withOrientation(Self.source, item.orientation)
        let comparison = try await ShrinkOnLoadComparison.run(data, path: "/photo.png", contentType: "image/png", options: item.options)
        let (served, reference) = (comparison.served, comparison.reference)
        // Compared premultiplied: a nearly transparent pixel's straight colour is mostly rounding
        // (alpha 1 against 0 at a stripe's edge gives any colour), its contribution is not.
        let difference = try #require(PixelDifference.between(Self.premultiplied(served.pixels), Self.premultiplied(reference.pixels)))
        // 37.9 dB and up; mapping the region as for a WebP (no partial-block offset on reversed
        // axes, w′/w scale) gives 29.5–38.3 dB, averaging without alpha weights 33.7–37.3 dB.
        #expect(difference.psnr >= 37.5, "\(difference)")

        #expect(comparison.decoded(at: item.scale), "\(comparison.metrics)")
    }

    @Test("Given an interlaced PNG scaled down, when served, then it is decoded at full size", .enabled(if: Corpus.isAvailable))
    func interlacedDecodesAtFullSize() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/interlaced.png", .ok(try Corpus.data("pngsuite/basi6a08.png"), contentType: "image/png"))
        harness.origin.route("/plain.png", .ok(try Corpus.data("pngsuite/basn6a08.png"), contentType: "image/png"))
        let interlaced = try await harness.get(harness.plainPath("/interlaced.png", options: "rs:fit:8:8", ext: "png"))
        #expect(interlaced.status == 200, "\(interlaced.text)")
        let plain = try await harness.get(harness.plainPath("/plain.png", options: "rs:fit:8:8", ext: "png"))
        #expect(plain.status == 200, "\(plain.text)")
        let metrics = try await harness.get("/metrics")
        #expect(metrics.text.contains("webimage_decodes_total{scale=\"1\"} 1"), "\(metrics.text)")
        #expect(metrics.text.contains("webimage_decodes_total{scale=\"1/4\"} 1"), "\(metrics.text)")
    }

    @Test("Given a 2400×1600 PNG shrunk to 300×200, when processed, then the 1/8 block average is the result without resampling")
    func exactEighthIsTheResult() throws {
        let pixels = PixelBuffer.make(width: 2400, height: 1600) { out in
            for index in stride(from: 0, to: out.count, by: 4) {
                out[index] = UInt8(truncatingIfNeeded: index / 4 % 2400 / 9)
                out[index + 1] = UInt8(truncatingIfNeeded: index / 9600 / 7)
                out[index + 2] = 90
                out[index + 3] = 255
            }
        }
        let data = try CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: false), format: .png, options: EncodeOptions())
        let options = try ProcessingOptions.parse(segments: ["rs:fit:300:200"], presets: PresetTable())
        let processor = ImageProcessor()
        let decoded = try processor.decode(data, options: options, keepAnimation: false)
        #expect(decoded.reduction?.denominator == 8)
        #expect(decoded.image.pixelSize == PixelSize(width: 300, height: 200))
        let result = try processor.transform(decoded, options: options)
        #expect(result.pixels.bytes == decoded.image.pixels.bytes)
        #expect(result.pixels.bytes == pixels.downscaled(to: PixelSize(width: 300, height: 200)).bytes)
    }
}
