import Foundation
import Testing
import WebImageCodecs
import WebImageCore

/// `webimage convert --pixelate`, `--flip hv`, `--padding` and `--watermark…` end to end: size
/// and pixels of the output of the built binary.
@Suite("webimage convert: pixelate, flip hv, padding, watermark")
struct ConvertNewTransformFlagTests {
    let flags = ConvertTransformFlagTests()
    typealias Q = ConvertTransformFlagTests

    func pixel(_ image: Image, _ x: Int, _ y: Int) -> RGBA { image.frames[0].pixels.pixel(x: x, y: y) }

    @Test("--pixelate 20 makes each quadrant one block of its colour; 40×20 stays 40×20")
    func pixelate() async throws {
        let image = try await flags.convert(["--pixelate", "20"])
        #expect(image.pixelSize == PixelSize(width: 40, height: 20))
        // Blocks of 20 × 20 span two quadrants vertically: the mean of red and green, of blue and white.
        #expect(pixel(image, 0, 0) == pixel(image, 19, 19) && pixel(image, 20, 0) == pixel(image, 39, 19))
        #expect(pixel(image, 0, 0) != pixel(image, 20, 0))
    }

    @Test("--flip hv turns the picture half round")
    func flipBoth() async throws {
        let image = try await flags.convert(["--flip", "hv"])
        #expect(pixel(image, 0, 0) == Q.white && pixel(image, 39, 19) == Q.red && pixel(image, 0, 19) == Q.blue)
    }

    @Test("--padding T,R,B,L grows the canvas; --padding-color fills it; without it the margin is transparent")
    func padding() async throws {
        let image = try await flags.convert(["--padding", "1,2,3,4", "--padding-color", "00ff00"])
        #expect(image.pixelSize == PixelSize(width: 46, height: 24))
        #expect(pixel(image, 0, 0) == Q.green && pixel(image, 45, 23) == Q.green)
        #expect(pixel(image, 4, 1) == Q.red && pixel(image, 43, 20) == Q.white)
        let clear = try await flags.convert(["--padding", "5"])
        #expect(clear.pixelSize == PixelSize(width: 50, height: 30))
        #expect(pixel(clear, 0, 0).a == 0 && pixel(clear, 5, 5) == Q.red)
    }

    @Test("--watermark FILE at soea with offsets, opacity and scale")
    func watermark() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let mark = Image(pixels: PixelBuffer(width: 4, height: 2, bytes: [UInt8](repeating: 0, count: 4 * 2 * 4).enumerated().map { $0.offset % 4 == 3 ? 255 : 0 }))
        let markURL = directory.appendingPathComponent("mark.png")
        try CodersManager.shared.encode(mark, format: .png, options: .default).write(to: markURL)

        let placed = try await flags.convert(["--watermark", markURL.path, "--watermark-position", "soea", "--watermark-offset", "2,1"])
        #expect(placed.pixelSize == PixelSize(width: 40, height: 20))
        // 40 − 4 − 2 = 34, 20 − 2 − 1 = 17: black over white there, white outside.
        #expect(pixel(placed, 34, 17) == RGBA(r: 0, g: 0, b: 0) && pixel(placed, 37, 18) == RGBA(r: 0, g: 0, b: 0))
        #expect(pixel(placed, 33, 17) == Q.white && pixel(placed, 38, 17) == Q.white && pixel(placed, 34, 19) == Q.white)

        let faded = try await flags.convert(["--watermark", markURL.path, "--watermark-position", "nowe", "--watermark-opacity", "0.5"])
        #expect(abs(Int(pixel(faded, 0, 0).r) - 128) <= 1 && pixel(faded, 0, 0).g == 0)

        // Scale 0.5 of 40×20 is a 20×10 box: the 4×2 mark becomes 20×10, the whole top-left quadrant.
        let scaled = try await flags.convert(["--watermark", markURL.path, "--watermark-position", "nowe", "--watermark-scale", "0.5"])
        #expect(pixel(scaled, 10, 5) == RGBA(r: 0, g: 0, b: 0) && pixel(scaled, 20, 5) == Q.blue && pixel(scaled, 10, 10) == Q.green)

        let tiled = try await flags.convert(["--watermark", markURL.path, "--watermark-position", "re"])
        #expect((0..<20).allSatisfy { y in (0..<40).allSatisfy { x in pixel(tiled, x, y) == RGBA(r: 0, g: 0, b: 0) } })
    }

    @Test("Bad values are refused before reading anything, naming the flag")
    func badValues() async throws {
        let cases: [([String], String)] = [
            (["--pixelate", "0"], "--pixelate"), (["--padding", "1,2,3"], "--padding"), (["--padding", "-1"], "--padding"),
            (["--padding-color", "ffffff"], "--padding-color"), (["--watermark-opacity", "0.5"], "--watermark"),
            (["--watermark", "/nonexistent.png", "--watermark-opacity", "2"], "--watermark-opacity"),
            (["--watermark", "/nonexistent.png", "--watermark-position", "middle"], "--watermark-position"),
            (["--watermark", "/nonexistent.png", "--watermark-offset", "1"], "--watermark-offset"),
            (["--flip", "x"], "--flip"),
        ]
        for (arguments, name) in cases {
            let result = try await CLIRunner.run(["convert", "/nonexistent-in.png", "/tmp/never-written.png"] + arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stderr.contains(name), "\(arguments): \(result.stderr)")
        }
    }
}
