import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// `webimage compare` run as the real binary: the score printed is the library's SSIMULACRA2 of
/// the decoded pair, `--json` has its documented keys, and every refusal is a non-zero exit
/// with a plain reason on stderr.
@Suite("webimage compare")
struct CompareCommandTests {
    /// A `width`×`height` image with smooth gradients and a few hard edges (an encoder has
    /// something to lose), optionally with an alpha ramp.
    static func picture(_ width: Int, _ height: Int, alpha: Bool = false) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let index = (y * width + x) * 4
                bytes[index] = UInt8((x * 255) / max(1, width - 1))
                bytes[index + 1] = UInt8((y * 255) / max(1, height - 1))
                bytes[index + 2] = (x / 8 + y / 8) % 2 == 0 ? 230 : 20
                bytes[index + 3] = alpha ? UInt8(64 + (x * 191) / max(1, width - 1)) : 255
            }
        }
        return PixelBuffer(width: width, height: height, bytes: bytes)
    }

    /// `pixels` encoded as `format` at `quality` into `directory/name`.
    static func write(_ pixels: PixelBuffer, as format: ImageFormat, quality: Double = 0.9, to directory: URL, name: String) throws -> URL {
        let image = Image(pixels: pixels, hasAlpha: pixels.isFullyOpaque() == false)
        let data = try CodersManager.shared.encode(image, format: format, options: EncodeOptions(quality: quality))
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return url
    }

    /// The library's score of the files as the tool decodes them (first frame, sRGB).
    static func libraryScore(_ reference: URL, _ distorted: URL) throws -> Double {
        let decode = { (url: URL) throws -> PixelBuffer in
            try CodersManager.shared.decode(Data(contentsOf: url), options: .default).pixels
        }
        return try SSIMULACRA2.score(reference: decode(reference), distorted: decode(distorted))
    }

    @Test("Given a PNG and JPEGs of it at two qualities, when compared, then each printed score is the library's and the lower quality scores lower")
    func printsTheLibraryScore() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let pixels = Self.picture(96, 64)
        let reference = try Self.write(pixels, as: .png, to: directory, name: "ref.png")
        let high = try Self.write(pixels, as: .jpeg, quality: 0.9, to: directory, name: "high.jpg")
        let low = try Self.write(pixels, as: .jpeg, quality: 0.2, to: directory, name: "low.jpg")
        var printed: [Double] = []
        for distorted in [high, low] {
            let result = try await CLIRunner.run(["compare", reference.path, distorted.path])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let score = try #require(Double(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "stdout: \(result.stdout)")
            #expect(abs(score - (try Self.libraryScore(reference, distorted))) < 1e-5)
            printed.append(score)
        }
        #expect(printed[0] < 100 && printed[1] < printed[0], "\(printed)")
    }

    @Test("Given the same image twice, when compared, then the score is 100")
    func identicalIsOneHundred() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let reference = try Self.write(Self.picture(40, 30), as: .png, to: directory, name: "a.png")
        let result = try await CLIRunner.run(["compare", reference.path, reference.path])
        #expect(result.status == 0)
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "100.000000")
    }

    @Test("Given --json, then one object with distorted, reference, size and ssimulacra2")
    func json() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let pixels = Self.picture(64, 48)
        let reference = try Self.write(pixels, as: .png, to: directory, name: "ref.png")
        let distorted = try Self.write(pixels, as: .webp, quality: 0.5, to: directory, name: "d.webp")
        let result = try await CLIRunner.run(["compare", "--json", reference.path, distorted.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        try #require(lines.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(Set(object.keys) == ["distorted", "reference", "size", "ssimulacra2"])
        #expect(object["reference"] as? String == reference.path)
        #expect(object["distorted"] as? String == distorted.path)
        #expect(object["size"] as? String == "64x48")
        let score = try #require(object["ssimulacra2"] as? Double)
        #expect(abs(score - (try Self.libraryScore(reference, distorted))) < 1e-9)
    }

    @Test("Given images with transparency, then the score is the library's (the lower of the dark and light backgrounds)")
    func alpha() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let pixels = Self.picture(64, 48, alpha: true)
        let reference = try Self.write(pixels, as: .png, to: directory, name: "ref.png")
        let distorted = try Self.write(pixels, as: .webp, quality: 0.4, to: directory, name: "d.webp")
        let result = try await CLIRunner.run(["compare", reference.path, distorted.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let score = try #require(Double(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(abs(score - (try Self.libraryScore(reference, distorted))) < 1e-5)
    }

    @Test("Given a data: URL as the distorted image, then it is read like a file")
    func dataURL() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let reference = try Self.write(Self.picture(32, 32), as: .png, to: directory, name: "ref.png")
        let url = "data:image/png;base64," + (try Data(contentsOf: reference)).base64EncodedString()
        let result = try await CLIRunner.run(["compare", reference.path, url])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "100.000000")
    }

    @Test("Given sizes that differ, a too-small image, a missing file or a file that is not an image, then a non-zero exit and a plain reason")
    func refusals() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        let reference = try Self.write(Self.picture(40, 30), as: .png, to: directory, name: "ref.png")
        let other = try Self.write(Self.picture(30, 40), as: .png, to: directory, name: "other.png")
        let tiny = try Self.write(Self.picture(4, 4), as: .png, to: directory, name: "tiny.png")
        let text = directory.appendingPathComponent("text.png")
        try Data("not an image".utf8).write(to: text)
        let cases: [([String], String)] = [
            ([reference.path, other.path], "differ in size"),
            ([tiny.path, tiny.path], "at least 8x8"),
            ([reference.path, directory.appendingPathComponent("missing.png").path], "cannot read"),
            ([reference.path, text.path], text.path),
        ]
        for (arguments, reason) in cases {
            let result = try await CLIRunner.run(["compare"] + arguments)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)")
            #expect(result.stderr.contains(reason), "\(arguments): \(result.stderr)")
            #expect(!result.stderr.contains("Fatal error") && !result.stderr.contains("Stack dump"))
        }
        let usage = try await CLIRunner.run(["compare", reference.path])
        #expect(usage.status != 0)
        #expect(usage.stderr.contains("Missing expected argument"))
    }
}
