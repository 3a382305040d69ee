import Foundation
import Testing
import WebImage
import WebImageTesting

@testable import WebImageServer

/// Shrink on load (issue #15): JPEG sources scaled down by 2 or more are decoded at a DCT scale
/// and resampled from there; the result must be the full-size path's, up to resampling.
// Serialized and small: renders in a debug build are slow, and the other service suites running
// alongside have deadlines of a second or so.
@Suite(.serialized, .timeLimit(.minutes(3))) struct ServiceShrinkOnLoadTests {
    /// A detailed photo-like pattern (waves of several frequencies, blocks with edges a few pixels wide) as a q95
    /// JPEG of a size that is no multiple of 8, so the decoder's edge padding matters.
    static let source: Data = {
        let width = 521, height = 393
        let pixels = PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let index = (y * width + x) * 4
                    let fx = Double(x), fy = Double(y)
                    out[index] = UInt8(clamping: Int(128 + 70 * sin(fx * 0.045 + fy * 0.012) + 40 * sin(fx * fy * 0.00002)))
                    out[index + 1] = UInt8(clamping: Int(128 + 90 * sin(fy * 0.06) * cos(fx * 0.013)))
                    out[index + 2] = UInt8(clamping: Int(125 + 85 * tanh(5 * sin(fx * 0.0849) * sin(fy * 0.0593))))
                    out[index + 3] = 255
                }
            }
        }
        return try! CodersManager.shared.encode(
            Image(pixels: pixels, hasAlpha: false), format: .jpeg, options: EncodeOptions(quality: 0.95))
    }()

    /// `jpeg` with an EXIF APP1 segment carrying `orientation` right after SOI.
    static func withOrientation(_ jpeg: Data, _ orientation: UInt8) -> Data {
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 0x2A, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        return Data([0xFF, 0xD8, 0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload) + jpeg.dropFirst(2)
    }

    static let cases: [ShrinkOnLoadCase] = [
        ShrinkOnLoadCase(options: "rs:fit:65:65", orientation: 1, scale: "1/8"),
        ShrinkOnLoadCase(options: "rs:fit:65:65", orientation: 3, scale: "1/8"),
        ShrinkOnLoadCase(options: "rs:fit:150:150", orientation: 6, scale: "1/2"),
        ShrinkOnLoadCase(options: "rs:fit:95:95", orientation: 8, scale: "1/4"),
        ShrinkOnLoadCase(options: "rs:fill:75:75/g:nowe", orientation: 5, scale: "1/4"),
        ShrinkOnLoadCase(options: "rs:fill:50:30/g:soea", orientation: 7, scale: "1/4"),
        ShrinkOnLoadCase(options: "c:300:200:ea/rs:fit:70:0", orientation: 1, scale: "1/4"),
        ShrinkOnLoadCase(options: "rs:fit:150:150/rot:90", orientation: 2, scale: "1/2"),
        ShrinkOnLoadCase(options: "rs:fit:80:80/rot:270", orientation: 6, scale: "1/4"),
        ShrinkOnLoadCase(options: "rs:force:50:150/rot:180", orientation: 4, scale: "1/2"),
        ShrinkOnLoadCase(options: "rs:fit:30:30/dpr:2/ex:1/g:so", orientation: 1, scale: "1/8"),
        ShrinkOnLoadCase(options: "rs:fit:65:65/ar:0", orientation: 6, scale: "1/8"),
        // flip mirrors the reduced axes too (the decoder's edge padding moves to the other side).
        ShrinkOnLoadCase(options: "rs:fill:50:30/g:soea/fl:1", orientation: 7, scale: "1/4"),
        ShrinkOnLoadCase(options: "rs:fit:150:150/rot:90/fl:0:1", orientation: 2, scale: "1/2"),
        ShrinkOnLoadCase(options: "rs:fit:65:65/fl:1:1/pd:3", orientation: 1, scale: "1/8"),
        // Full size: the result depends on full-resolution pixels, or the shrink is under 2.
        ShrinkOnLoadCase(options: "rs:fit:65:65/t:10", orientation: 1, scale: "1"),
        ShrinkOnLoadCase(options: "rs:fill:64:64/g:sm", orientation: 1, scale: "1"),
        ShrinkOnLoadCase(options: "rs:fit:300:300", orientation: 6, scale: "1"),
    ]

    @Test("Given a JPEG scaled down, when served, then it is decoded reduced and looks like the full-size path", arguments: cases)
    func reducedDecodeMatchesFullDecode(_ item: ShrinkOnLoadCase) async throws {
        let data = Self.withOrientation(Self.source, item.orientation)
        let comparison = try await ShrinkOnLoadComparison.run(data, path: "/photo.jpg", contentType: "image/jpeg", options: item.options)
        let (served, reference) = (comparison.served, comparison.reference)
        let difference = try #require(PixelDifference.between(served.pixels, reference.pixels))
        // 41 dB where the 1/8 block average is the result, 48–56 dB elsewhere; mapping the
        // region without the reversed axes' padding offset gives 18–38 dB.
        #expect(difference.psnr >= 38, "\(difference)")

        #expect(comparison.decoded(at: item.scale), "\(comparison.metrics)")
    }

    @Test("Given an 800×600 JPEG shrunk to 100×75, when processed, then the 1/8 decode is the result without resampling")
    func exactEighthIsTheResult() throws {
        let pixels = PixelBuffer.make(width: 800, height: 600) { out in
            for index in stride(from: 0, to: out.count, by: 4) {
                out[index] = UInt8(truncatingIfNeeded: index / 4 % 800 / 3)
                out[index + 1] = UInt8(truncatingIfNeeded: index / 3200 / 3)
                out[index + 2] = 90
                out[index + 3] = 255
            }
        }
        let data = try CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: false), format: .jpeg, options: EncodeOptions(quality: 0.9))
        let options = try ProcessingOptions.parse(segments: ["rs:fit:100:75"], presets: PresetTable())
        let processor = ImageProcessor()
        let decoded = try processor.decode(data, options: options, keepAnimation: false)
        #expect(decoded.reduction?.denominator == 8)
        #expect(decoded.image.pixelSize == PixelSize(width: 100, height: 75))
        let result = try processor.transform(decoded, options: options)
        #expect(result.pixels.bytes == decoded.image.pixels.bytes)
    }

    @Test("Given every orientation and rotation, when the axis map is applied, then it predicts where each stored pixel is shown")
    func axisMapFollowsThePixels() throws {
        let stored = PixelSize(width: 3, height: 2)
        let pixels = PixelBuffer.make(width: 3, height: 2) { out in
            for index in stride(from: 0, to: out.count, by: 4) { out[index] = UInt8(index / 4); out[index + 3] = 255 }
        }
        for orientation in ImageOrientation.allCases {
            for rotate in [0, 90, 180, 270] {
                let turned = try #require(RotateTransformer(angle: Double(rotate)).transform(
                    Image(pixels: pixels.applying(orientation), hasAlpha: false), key: ""))
                let map = ShrinkOnLoad(storedSize: stored, orientation: orientation, rotate: rotate).axes
                #expect(map.size(of: stored) == turned.pixelSize)
                for sy in 0..<2 {
                    for sx in 0..<3 {
                        func place(_ source: AxisMap.Source) -> Int {
                            let (value, length) = source.storedAxis == 0 ? (sx, 3) : (sy, 2)
                            return source.reversed ? length - 1 - value : value
                        }
                        let shown = turned.pixels.pixel(x: place(map.x), y: place(map.y))
                        #expect(Int(shown.r) == sy * 3 + sx, "orientation \(orientation), rotate \(rotate)")
                    }
                }
            }
        }
    }
}
