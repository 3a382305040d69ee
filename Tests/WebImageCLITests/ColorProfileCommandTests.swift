import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// G-1, G-3 through the tool: `webimage info` names the profile; `webimage convert` writes
/// untagged sRGB by default and keeps the profile with `--keep-color-profile`.
@Suite("webimage colour profiles")
struct ColorProfileCommandTests {
    /// A Display P3 PNG (ICC made by LittleCMS from the CICP description) in `directory`.
    static func writeP3(in directory: URL) throws -> URL {
        let pixels = PixelBuffer.make(width: 40, height: 24) { out in
            for i in 0..<(40 * 24) {
                out[i * 4] = UInt8((i * 11) % 256)
                out[i * 4 + 1] = UInt8((i / 40) * 10)
                out[i * 4 + 2] = UInt8((i * 5) % 256)
                out[i * 4 + 3] = 255
            }
        }
        let p3 = ColorProfile(kind: .cicp(CICP(colorPrimaries: 12, transferCharacteristics: 13, matrixCoefficients: 0, fullRange: true)))
        let data = try PNGCoder().encode(Image(pixels: pixels, hasAlpha: false, colorProfile: p3), format: .png, options: EncodeOptions())
        let url = directory.appendingPathComponent("p3.png")
        try data.write(to: url)
        return url
    }

    @Test("Given a tagged PNG, when inspected, then info shows the profile's name, in JSON too")
    func infoShowsTheProfile() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try Self.writeP3(in: directory)
        let name = try #require(try PNGCoder().readMetadata(Data(contentsOf: input)).colorProfile?.name)
        let table = try await CLIRunner.run(["info", input.path])
        #expect(table.status == 0, "stderr: \(table.stderr)")
        #expect(table.stdout.contains("PROFILE") && table.stdout.contains(name), "\(table.stdout)")
        let json = try await CLIRunner.run(["info", "--json", input.path])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["colorProfile"] as? String == name)
    }

    @Test("Given a tagged PNG, when converted, then the output is untagged sRGB unless --keep-color-profile")
    func convertStripsOrKeeps() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = try Self.writeP3(in: directory)
        let source = try Data(contentsOf: input)
        for ext in ["png", "webp", "jpg"] {
            let stripped = directory.appendingPathComponent("out.\(ext)")
            let result = try await CLIRunner.run(["convert", input.path, stripped.path])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(try CodersManager.shared.readMetadata(Data(contentsOf: stripped)).colorProfile == nil, "\(ext)")
            let kept = directory.appendingPathComponent("kept.\(ext)")
            let keptResult = try await CLIRunner.run(["convert", input.path, kept.path, "--keep-color-profile"])
            #expect(keptResult.status == 0, "stderr: \(keptResult.stderr)")
            #expect(try CodersManager.shared.readMetadata(Data(contentsOf: kept)).colorProfile?.iccData != nil, "\(ext)")
        }
        let png = try PNGCoder().decode(Data(contentsOf: directory.appendingPathComponent("out.png")), options: .default)
        #expect(png.pixels.bytes == (try PNGCoder().decode(source, options: .default)).pixels.bytes)
    }
}
