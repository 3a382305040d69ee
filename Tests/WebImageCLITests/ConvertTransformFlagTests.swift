import Foundation
import Testing
import WebImageCodecs
import WebImageCore

/// Every `webimage convert` transform flag end to end: the built binary converts a generated
/// PNG and the test checks the output's size and pixels (not only the exit status).
@Suite("webimage convert: every transform flag")
struct ConvertTransformFlagTests {
    static let red = RGBA(r: 255, g: 0, b: 0, a: 255)
    static let blue = RGBA(r: 0, g: 0, b: 255, a: 255)
    static let green = RGBA(r: 0, g: 255, b: 0, a: 255)
    static let white = RGBA(r: 255, g: 255, b: 255, a: 255)

    /// 40×20 in four 20×10 quadrants: red, blue / green, white.
    static func quadrants() -> Image {
        let pixels = PixelBuffer.make(width: 40, height: 20) { out in
            for y in 0..<20 {
                for x in 0..<40 {
                    let colour = y < 10 ? (x < 20 ? red : blue) : (x < 20 ? green : white)
                    let i = (y * 40 + x) * 4
                    out[i] = colour.r
                    out[i + 1] = colour.g
                    out[i + 2] = colour.b
                    out[i + 3] = colour.a
                }
            }
        }
        return Image(pixels: pixels, hasAlpha: false)
    }

    /// Writes the quadrants as PNG, runs `convert IN OUT.png arguments…`, decodes the output.
    func convert(_ arguments: [String], input: Image = quadrants(), format: ImageFormat = .png) async throws -> Image {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try writeInput(input, format: format, in: directory)
        let output = directory.appendingPathComponent("out.\(format.fileExtension)")
        let result = try await CLIRunner.run(["convert", input.path, output.path] + arguments)
        #expect(result.status == 0, "convert \(arguments): \(result.stderr)")
        return try CodersManager.shared.decode(Data(contentsOf: output), options: .default)
    }

    func writeInput(_ image: Image, format: ImageFormat, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent("in.\(format.fileExtension)")
        try CodersManager.shared.encode(image, format: format, options: .default).write(to: url)
        return url
    }

    func pixel(_ image: Image, _ x: Int, _ y: Int) -> RGBA { image.frames[0].pixels.pixel(x: x, y: y) }

    @Test("--crop X,Y,W,H keeps that rectangle")
    func crop() async throws {
        let image = try await convert(["--crop", "20,0,20,10"])
        #expect(image.pixelSize == PixelSize(width: 20, height: 10))
        #expect(pixel(image, 0, 0) == Self.blue && pixel(image, 19, 9) == Self.blue)
    }

    @Test("--rotate 90 turns the picture clockwise and swaps width and height")
    func rotate() async throws {
        let image = try await convert(["--rotate", "90"])
        #expect((20...21).contains(image.width) && (40...41).contains(image.height))
        // Clockwise: the bottom-left (green) quadrant comes to the top left, the top-left (red)
        // one to the top right, the top-right (blue) one to the bottom right.
        #expect(pixel(image, 5, 10) == Self.green)
        #expect(pixel(image, image.width - 5, 10) == Self.red)
        #expect(pixel(image, image.width - 5, image.height - 10) == Self.blue)
    }

    @Test("--flip h mirrors left-right; --flip v top-bottom")
    func flip() async throws {
        let horizontal = try await convert(["--flip", "h"])
        #expect(horizontal.pixelSize == PixelSize(width: 40, height: 20))
        #expect(pixel(horizontal, 5, 5) == Self.blue && pixel(horizontal, 35, 15) == Self.green)
        let vertical = try await convert(["--flip", "v"])
        #expect(pixel(vertical, 5, 5) == Self.green && pixel(vertical, 35, 15) == Self.blue)
    }

    @Test("--blur R mixes neighbouring colours at the edges and leaves the size")
    func blur() async throws {
        let image = try await convert(["--blur", "3"])
        #expect(image.pixelSize == PixelSize(width: 40, height: 20))
        let edge = pixel(image, 20, 4)  // where red meets blue
        #expect(edge.r > 40 && edge.b > 40, "blurred edge \(edge)")
        let inside = pixel(image, 2, 2)
        #expect(inside.r > 200 && inside.b < 60, "far from the edge stays red: \(inside)")
    }

    @Test("--round-corners R makes the corners transparent")
    func roundCorners() async throws {
        let image = try await convert(["--round-corners", "8"])
        #expect(image.pixelSize == PixelSize(width: 40, height: 20))
        #expect(pixel(image, 0, 0).a == 0 && pixel(image, 39, 19).a == 0)
        #expect(pixel(image, 20, 10).a == 255)
    }

    @Test("--tint RRGGBBAA blends the colour in with the alpha as strength")
    func tint() async throws {
        let image = try await convert(["--tint", "00FF0080"])
        let tinted = pixel(image, 5, 5)  // was pure red
        #expect(tinted.g > 80 && tinted.r < 200, "tinted red \(tinted)")
        #expect(tinted.a == 255)
    }

    @Test("--fit decides how --resize fits: fit keeps the aspect ratio inside, cover and fill take the whole box")
    func fit() async throws {
        let fitted = try await convert(["--resize", "20x20", "--fit", "fit"])
        #expect(fitted.pixelSize == PixelSize(width: 20, height: 10))
        let covered = try await convert(["--resize", "20x20", "--fit", "cover"])
        #expect(covered.pixelSize == PixelSize(width: 20, height: 20))
        // Cover crops the centre: the left quarter of the picture is gone, so the top-left is
        // still red but the middle column meets blue.
        #expect(pixel(covered, 2, 2) == Self.red || pixel(covered, 2, 2).r > 200)
        let filled = try await convert(["--resize", "20x20", "--fit", "fill"])
        #expect(filled.pixelSize == PixelSize(width: 20, height: 20))
        #expect(pixel(filled, 2, 17).g > 200 && pixel(filled, 2, 17).r < 60, "stretched: the bottom-left is green")
    }

    @Test("--filter chooses the resampling filter: box and lanczos3 give different pixels at an edge")
    func filter() async throws {
        let box = try await convert(["--resize", "13x7", "--filter", "box"])
        let lanczos = try await convert(["--resize", "13x7", "--filter", "lanczos3"])
        #expect(box.pixelSize == PixelSize(width: 13, height: 7) && lanczos.pixelSize == box.pixelSize)
        let differing = (0..<7).flatMap { y in (0..<13).map { x in (x, y) } }.filter { pixel(box, $0.0, $0.1) != pixel(lanczos, $0.0, $0.1) }
        #expect(!differing.isEmpty, "the filter changed nothing")
    }

    @Test("An animation stays animated through convert and its transforms, unless --first-frame")
    func animationKept() async throws {
        let frames = (0..<3).map { index in
            ImageFrame(pixels: PixelBuffer.make(width: 16, height: 8) { out in
                for i in stride(from: 0, to: out.count, by: 4) {
                    out[i] = UInt8(index * 120)
                    out[i + 1] = 0
                    out[i + 2] = 255 - UInt8(index * 120)
                    out[i + 3] = 255
                }
            }, duration: 0.1)
        }
        let animation = Image(frames: frames, loopCount: 0, hasAlpha: false)
        let kept = try await convert([], input: animation, format: .gif)
        #expect(kept.frames.count == 3)
        let transformed = try await convert(["--flip", "h", "--resize", "8x4"], input: animation, format: .gif)
        #expect(transformed.frames.count == 3 && transformed.pixelSize == PixelSize(width: 8, height: 4))
        let first = try await convert(["--first-frame"], input: animation, format: .gif)
        #expect(first.frames.count == 1)
        #expect(first.frames[0].pixels.pixel(x: 4, y: 4).b > 200, "the first frame is the blue one")
    }
}
