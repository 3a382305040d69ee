import Foundation
import Testing
import WebImageCodecs
@testable import WebImageCore
import WebImageTesting

/// SSIMULACRA2 against its reference over image pairs made at test time: corpus photos and
/// graphics (read in place, sized to at most 512 pixels), each distorted by our JPEG, WebP and
/// AVIF encoders at several qualities, a blur and seeded noise. The reference is PyPI's
/// `ssimulacra2` run by scripts/ssimulacra2-reference.py in `.build-quality-venv`
/// (scripts/quality-venv.sh, part of `make setup`), with libjxl's blur put in place of its own
/// (the script's docstring says how the two differ); the plain PyPI score is printed beside it.
@Suite("SSIMULACRA2 reference")
struct SSIMULACRA2ReferenceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let sources = [
        "jpeg-misc/progressive/3.jpg", "sdwebimage/TestICCProfile.jpg", "sdwebimage/TestJFIF.jpg",
        "sdwebimage/TestImageLarge.png", "png-misc/bugfixes/debug_triangle_corners_widescreen.png",
        "exif-orientation/Landscape_1.jpg",
    ]

    /// The source, at most 512 pixels on a side, opaque (alpha dropped, as the reference does).
    static func source(_ path: String) throws -> PixelBuffer {
        var options = DecodeOptions()
        options.thumbnailPixelSize = PixelSize(width: 512, height: 512)
        let pixels = try CodersManager.shared.decode(try Corpus.data(path), options: options).pixels
        var bytes = pixels.bytes
        for i in Swift.stride(from: 3, to: bytes.count, by: 4) { bytes[i] = 255 }
        return PixelBuffer(width: pixels.width, height: pixels.height, bytes: bytes)
    }

    static func roundTrip(_ pixels: PixelBuffer, _ format: ImageFormat, quality: Double) throws -> PixelBuffer {
        let data = try CodersManager.shared.encode(
            Image(pixels: pixels, hasAlpha: false), format: format, options: EncodeOptions(quality: quality))
        let decoded = try CodersManager.shared.decode(data, options: DecodeOptions()).pixels
        var bytes = decoded.bytes
        for i in Swift.stride(from: 3, to: bytes.count, by: 4) { bytes[i] = 255 }
        return PixelBuffer(width: decoded.width, height: decoded.height, bytes: bytes)
    }

    static func noisy(_ pixels: PixelBuffer, amplitude: Int, seed: UInt64) -> PixelBuffer {
        var random = SeededRandom(seed: seed)
        var bytes = pixels.bytes
        for i in bytes.indices where i % 4 != 3 {
            bytes[i] = UInt8(clamping: Int(bytes[i]) + random.below(2 * amplitude + 1) - amplitude)
        }
        return PixelBuffer(width: pixels.width, height: pixels.height, bytes: bytes)
    }

    /// The distortions of one source, named.
    static func distortions(of pixels: PixelBuffer) throws -> [(String, PixelBuffer)] {
        var out: [(String, PixelBuffer)] = []
        for q in [15, 40, 75, 92] { out.append(("jpeg\(q)", try roundTrip(pixels, .jpeg, quality: Double(q) / 100))) }
        for q in [20, 60] { out.append(("webp\(q)", try roundTrip(pixels, .webp, quality: Double(q) / 100))) }
        for q in [30, 70] { out.append(("avif\(q)", try roundTrip(pixels, .avif, quality: Double(q) / 100))) }
        let blurred = BlurTransformer(radius: 2).transform(Image(pixels: pixels, hasAlpha: false), key: "")?.pixels
        out.append(("blur2", try #require(blurred)))
        out.append(("noise12", noisy(pixels, amplitude: 12, seed: 7)))
        return out
    }

    static func writePNG(_ pixels: PixelBuffer, to url: URL) throws {
        try CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: false), format: .png, options: EncodeOptions())
            .write(to: url)
    }

    /// Runs the reference script over `folder`; its JSON answer.
    static func reference(_ folder: URL) throws -> [String: [String: Double]] {
        let venv = Process()
        venv.executableURL = URL(fileURLWithPath: "/bin/bash")
        venv.arguments = [root.appendingPathComponent("scripts/quality-venv.sh").path]
        let venvOut = Pipe()
        venv.standardOutput = venvOut
        try venv.run()
        let python = String(decoding: venvOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        venv.waitUntilExit()
        #expect(venv.terminationStatus == 0, "scripts/quality-venv.sh failed: run `make setup`")
        let script = Process()
        script.executableURL = URL(fileURLWithPath: python)
        script.arguments = [root.appendingPathComponent("scripts/ssimulacra2-reference.py").path, folder.path]
        let out = Pipe()
        script.standardOutput = out
        try script.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        script.waitUntilExit()
        #expect(script.terminationStatus == 0)
        return try JSONDecoder().decode([String: [String: Double]].self, from: data)
    }

    @Test("within 1 point of the reference over 60 pairs", .enabled(if: Corpus.isAvailable))
    func agreesWithReference() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ssimulacra2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var ours: [String: Double] = [:]
        // The same scores from the portable kernels and from a prepared reference.
        var portable: [String: Double] = [:]
        var prepared: [String: Double] = [:]
        let scorer = SSIMULACRA2.Scorer()
        let portableScorer = SSIMULACRA2.Scorer(kernelLevel: 0)
        for (index, path) in Self.sources.enumerated() {
            let pixels = try Self.source(path)
            let preparedReference = try SSIMULACRA2.PreparedReference(pixels)
            #expect(min(pixels.width, pixels.height) >= 256, "\(path): all six scales need 256 pixels")
            for (name, distorted) in try Self.distortions(of: pixels) {
                let key = "s\(index)-\(name)"
                try Self.writePNG(pixels, to: folder.appendingPathComponent("\(key).ref.png"))
                try Self.writePNG(distorted, to: folder.appendingPathComponent("\(key).dist.png"))
                ours[key] = try scorer.score(reference: pixels, distorted: distorted)
                portable[key] = try portableScorer.score(reference: pixels, distorted: distorted)
                prepared[key] = try scorer.score(prepared: preparedReference, distorted: distorted)
            }
        }
        let reference = try Self.reference(folder)
        #expect(reference.count == ours.count)
        #expect(ours.count >= 50)
        var worst = 0.0
        var worstPlain = 0.0
        for (key, score) in ours.sorted(by: { $0.key < $1.key }) {
            let expected = try #require(reference[key]?["libjxl_blur"], "\(key): no reference score")
            let plain = reference[key]?["pypi"] ?? .nan
            print(String(format: "ssimulacra2 %@ ours=%.4f reference=%.4f pypi=%.4f", key, score, expected, plain))
            #expect(abs(score - expected) <= 1, "\(key): \(score) against \(expected)")
            for (name, other) in [("portable", portable[key]), ("prepared", prepared[key])] {
                let other = try #require(other)
                #expect(abs(other - expected) <= 1, "\(key) \(name): \(other) against \(expected)")
                worst = max(worst, abs(other - expected))
            }
            worst = max(worst, abs(score - expected))
            worstPlain = max(worstPlain, abs(score - plain))
        }
        print(String(format: "ssimulacra2: %d pairs, largest difference %.4f (unmodified PyPI: %.4f)", ours.count, worst, worstPlain))
    }

    @Test("identical images score 100; stronger distortion scores lower")
    func ordering() throws {
        var random = SeededRandom(seed: 3)
        let bytes = (0..<(64 * 48 * 4)).map { i in i % 4 == 3 ? UInt8(255) : UInt8(truncatingIfNeeded: random.next()) }
        let pixels = PixelBuffer(width: 64, height: 48, bytes: bytes)
        #expect(try SSIMULACRA2.score(reference: pixels, distorted: pixels) == 100)
        let light = Self.noisy(pixels, amplitude: 4, seed: 1)
        let heavy = Self.noisy(pixels, amplitude: 40, seed: 1)
        let lightScore = try SSIMULACRA2.score(reference: pixels, distorted: light)
        let heavyScore = try SSIMULACRA2.score(reference: pixels, distorted: heavy)
        #expect(lightScore < 100)
        #expect(heavyScore < lightScore)
    }

    @Test("different sizes and images under 8x8 are refused in plain words")
    func refusals() throws {
        let a = PixelBuffer(width: 16, height: 16, bytes: [UInt8](repeating: 128, count: 16 * 16 * 4))
        let b = PixelBuffer(width: 16, height: 15, bytes: [UInt8](repeating: 128, count: 16 * 15 * 4))
        let tiny = PixelBuffer(width: 7, height: 9, bytes: [UInt8](repeating: 128, count: 7 * 9 * 4))
        #expect {
            try SSIMULACRA2.score(reference: a, distorted: b)
        } throws: { error in
            "\(error)".contains("differ in size: 16x16 and 16x15")
        }
        #expect {
            try SSIMULACRA2.score(reference: tiny, distorted: tiny)
        } throws: { error in
            "\(error)".contains("at least 8x8")
        }
    }

    @Test("transparent pixels are scored on a dark and a light background: the colour under alpha 0 does not count")
    func alpha() throws {
        var opaque = [UInt8](repeating: 0, count: 32 * 32 * 4)
        var hidden = opaque
        for i in Swift.stride(from: 0, to: opaque.count, by: 4) {
            let transparent = (i / 4) % 32 < 16
            opaque[i] = 200
            opaque[i + 3] = transparent ? 0 : 255
            hidden[i] = transparent ? 10 : 200
            hidden[i + 3] = opaque[i + 3]
        }
        let a = PixelBuffer(width: 32, height: 32, bytes: opaque)
        let b = PixelBuffer(width: 32, height: 32, bytes: hidden)
        #expect(try SSIMULACRA2.score(reference: a, distorted: b) == 100)
    }
}
