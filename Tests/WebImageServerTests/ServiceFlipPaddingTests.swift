import Foundation
import Testing
import WebImage
import WebImageTesting

@testable import WebImageServer

/// `flip` (`fl`) and `padding` (`pd`) over loopback HTTP: result sizes and where the pixels land.
/// The source is the harness's gradient (red rises left to right, green top to bottom, blue 64).
@Suite(.serialized, .timeLimit(.minutes(3))) struct ServiceFlipPaddingTests {
    private static let transparent = RGBA(r: 0, g: 0, b: 0, a: 0)
    private static let red = RGBA(r: 255, g: 0, b: 0)

    private func served(_ harness: ServiceHarness, _ options: String) async throws -> Image {
        let reply = try await harness.get(harness.plainPath("/src.png", options: options, ext: "png"))
        #expect(reply.status == 200, "\(options): \(reply.text)")
        return try TestImages.decode(reply.body)
    }

    @Test("Given fl:1, fl:0:1, fl::1 and fl:1:1, when served, then the gradient runs the other way on the flipped axes only")
    func flipAxes() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 64, height: 48), contentType: "image/png"))
        for (options, horizontal, vertical) in [
            ("fl:1", true, false), ("flip:0:1", false, true), ("fl::1", false, true), ("fl:1:1", true, true), ("fl:0:0", false, false),
        ] {
            let image = try await served(harness, options)
            #expect(image.pixelSize == PixelSize(width: 64, height: 48), "\(options)")
            let topLeft = image.pixels.pixel(x: 0, y: 0), bottomRight = image.pixels.pixel(x: 63, y: 47)
            #expect(topLeft.r == (horizontal ? 255 : 0) && bottomRight.r == (horizontal ? 0 : 255), "\(options): \(topLeft) \(bottomRight)")
            #expect(topLeft.g == (vertical ? 255 : 0) && bottomRight.g == (vertical ? 0 : 255), "\(options): \(topLeft) \(bottomRight)")
        }
    }

    @Test("Given flip with a crop gravity, then the gravity refers to the flipped image (imgproxy flips before cropping to the result)")
    func flipBeforeGravity() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 64, height: 48), contentType: "image/png"))
        // The west 16 columns of the flipped image are the source's east 16, mirrored.
        let image = try await served(harness, "fl:1/c:16:48:we")
        #expect(image.pixelSize == PixelSize(width: 16, height: 48))
        #expect(image.pixels.pixel(x: 0, y: 0).r == 255)
        #expect(image.pixels.pixel(x: 15, y: 0).r >= 180)
        // After rot:90 the image is 48×64; fl:1 then mirrors that one left ↔ right.
        let turned = try await served(harness, "rot:90/fl:1")
        #expect(turned.pixelSize == PixelSize(width: 48, height: 64))
        let plainTurned = try await served(harness, "rot:90")
        #expect(turned.pixels.pixel(x: 0, y: 5) == plainTurned.pixels.pixel(x: 47, y: 5))
    }

    @Test("Given the flip option, when the axis map of a reduced decode is made, then it predicts where each stored pixel is shown")
    func axisMapWithFlip() throws {
        let stored = PixelSize(width: 3, height: 2)
        let pixels = PixelBuffer.make(width: 3, height: 2) { out in
            for index in stride(from: 0, to: out.count, by: 4) { out[index] = UInt8(index / 4); out[index + 3] = 255 }
        }
        for orientation in ImageOrientation.allCases {
            for rotate in [0, 90, 180, 270] {
                for (horizontal, vertical) in [(true, false), (false, true), (true, true)] {
                    let turned = try #require(RotateTransformer(angle: Double(rotate)).transform(
                        Image(pixels: pixels.applying(orientation), hasAlpha: false), key: ""))
                    let flipped = try #require(FlipTransformer(horizontal: horizontal, vertical: vertical).transform(turned, key: ""))
                    let map = ShrinkOnLoad(
                        storedSize: stored, orientation: orientation, rotate: rotate, flipHorizontal: horizontal, flipVertical: vertical).axes
                    #expect(map.size(of: stored) == flipped.pixelSize)
                    for sy in 0..<2 {
                        for sx in 0..<3 {
                            func place(_ source: AxisMap.Source) -> Int {
                                let (value, length) = source.storedAxis == 0 ? (sx, 3) : (sy, 2)
                                return source.reversed ? length - 1 - value : value
                            }
                            let shown = flipped.pixels.pixel(x: place(map.x), y: place(map.y))
                            #expect(Int(shown.r) == sy * 3 + sx, "orientation \(orientation), rotate \(rotate), flip \(horizontal) \(vertical)")
                        }
                    }
                }
            }
        }
    }

    @Test("Given pd with one to four sides, when served, then the sides follow CSS order and the margin is transparent")
    func paddingSides() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 64, height: 48), contentType: "image/png"))
        // (options, top, right, bottom, left)
        for (options, top, right, bottom, left) in [
            ("pd:10", 10, 10, 10, 10), ("pd:10:20", 10, 20, 10, 20), ("padding:1:2:3", 1, 2, 3, 2), ("pd:1:2:3:4", 1, 2, 3, 4),
            ("pd::5", 0, 5, 0, 5), ("pd:0:0:0:7", 0, 0, 0, 7),
        ] {
            let image = try await served(harness, options)
            #expect(image.pixelSize == PixelSize(width: 64 + left + right, height: 48 + top + bottom), "\(options)")
            // The source's corners sit just inside the margin; the margin is transparent.
            #expect(image.pixels.pixel(x: left, y: top) == RGBA(r: 0, g: 0, b: 64), "\(options)")
            #expect(image.pixels.pixel(x: left + 63, y: top + 47) == RGBA(r: 255, g: 255, b: 64), "\(options)")
            if left > 0 { #expect(image.pixels.pixel(x: left - 1, y: top) == Self.transparent, "\(options)") }
            if top > 0 { #expect(image.pixels.pixel(x: left, y: top - 1) == Self.transparent, "\(options)") }
            if right > 0 { #expect(image.pixels.pixel(x: left + 64, y: top) == Self.transparent, "\(options)") }
            if bottom > 0 { #expect(image.pixels.pixel(x: left, y: top + 48) == Self.transparent, "\(options)") }
        }
        // With a background the margin has its colour.
        let filled = try await served(harness, "pd:3/bg:ff0000")
        #expect(filled.pixelSize == PixelSize(width: 70, height: 54))
        #expect(filled.pixels.pixel(x: 0, y: 0) == Self.red && filled.pixels.pixel(x: 69, y: 53) == Self.red)
        #expect(filled.pixels.pixel(x: 3, y: 3) == RGBA(r: 0, g: 0, b: 64))
        // Padding 0 on every side is no padding: the same answer as without it.
        let plain = try await harness.get(harness.plainPath("/src.png", ext: "png"))
        let zero = try await harness.get(harness.plainPath("/src.png", options: "pd:0", ext: "png"))
        #expect(zero.header("ETag") == plain.header("ETag"))
    }

    @Test("Given pd with extend, then the padding goes around the extended canvas")
    func paddingAfterExtend() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 64, height: 48), contentType: "image/png"))
        // Not enlarged: 64×48 centred on the 100×100 canvas at (18, 26), then 10 on each side.
        let image = try await served(harness, "w:100/h:100/ex:1/pd:10/bg:ff0000")
        #expect(image.pixelSize == PixelSize(width: 120, height: 120))
        #expect(image.pixels.pixel(x: 28, y: 36) == RGBA(r: 0, g: 0, b: 64))
        #expect(image.pixels.pixel(x: 28 + 63, y: 36 + 47) == RGBA(r: 255, g: 255, b: 64))
        #expect(image.pixels.pixel(x: 27, y: 36) == Self.red && image.pixels.pixel(x: 5, y: 5) == Self.red)
        // extend_aspect_ratio, then padding: 64×48 to 1:1 is 64×64, plus 2 + 4 across and 1 + 3 down.
        let ratio = try await served(harness, "w:100/h:100/exar:1/pd:1:2:3:4")
        #expect(ratio.pixelSize == PixelSize(width: 70, height: 68))
        #expect(ratio.pixels.pixel(x: 4, y: 1 + 8) == RGBA(r: 0, g: 0, b: 64))
        #expect(ratio.pixels.pixel(x: 4, y: 1) == Self.transparent)
    }

    @Test("Given pd with dpr and zoom, then the padding is scaled by the device-pixel ratio used, never by zoom")
    func paddingWithDPR() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 64, height: 48), contentType: "image/png"))
        for (options, width, height) in [
            // w:32 at dpr 2 is the whole 64-pixel source: the ratio is used, the padding doubled.
            ("w:32/dpr:2/pd:10", 64 + 40, 48 + 40),
            // Without a size the ratio would need the source enlarged: it is capped to 1.
            ("dpr:2/pd:10", 64 + 20, 48 + 20),
            // w:16 at dpr 1.5 is 24 wide: the padding 5 becomes 7.5, rounded half to even to 8.
            ("w:16/dpr:1.5/pd:5", 24 + 16, 18 + 16),
            // zoom scales the image, not the padding.
            ("w:32/z:2/pd:10", 64 + 20, 48 + 20),
        ] {
            let image = try await served(harness, options)
            #expect(image.pixelSize == PixelSize(width: width, height: height), "\(options)")
        }
    }

    @Test("Given an animated GIF, when padded and flipped, then every frame is kept, padded and flipped")
    func animated() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/anim.gif", .ok(try TestImages.animatedGIF(frames: 3), contentType: "image/gif"))
        let reply = try await harness.get(harness.plainPath("/anim.gif", options: "pd:2/bg:ffffff/fl:1", ext: "gif"))
        #expect(reply.status == 200, "\(reply.text)")
        let image = try TestImages.decode(reply.body)
        #expect(image.frames.count == 3)
        #expect(image.pixelSize == PixelSize(width: 44, height: 34))
        for frame in image.frames {
            let corner = frame.pixels.pixel(x: 0, y: 0), inside = frame.pixels.pixel(x: 10, y: 10)
            #expect(corner.r > 240 && corner.g > 240 && corner.b > 240, "\(corner)")
            #expect(inside.b < 20, "\(inside)")
        }
    }

    @Test("Given bad flip or padding arguments, then 400 names the option")
    func badArguments() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 64, height: 48), contentType: "image/png"))
        for (options, name) in [
            ("fl:x", "fl"), ("flip:1:1:1", "flip"), ("fl:1:maybe", "fl"),
            ("pd:-1", "pd"), ("pd:a", "pd"), ("padding:1:2:3:4:5", "padding"), ("pd:99999", "pd"), ("pd:1:x", "pd"),
        ] {
            let reply = try await harness.get(harness.plainPath("/src.png", options: options, ext: "png"))
            #expect(reply.status == 400, "\(options)")
            #expect(reply.text.contains("bad option \(name)"), "\(options): \(reply.text)")
        }
    }
}
