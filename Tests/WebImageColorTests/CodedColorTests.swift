import CLCMS2
import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// G-1: PNG's coded colour chunks (`cICP`, `sRGB`, `gAMA` + `cHRM`) and their precedence.
@Suite("Colour: PNG coded colour spaces")
struct CodedColorTests {
    /// `png` with a chunk of `type` and `data` inserted after `IHDR`.
    static func inserting(_ type: String, _ data: [UInt8], into png: Data) -> Data {
        var chunk: [UInt8] = []
        let length = UInt32(data.count)
        chunk += [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
        let typed = Array(type.utf8) + data
        let crc = CRC32.checksum(typed)
        chunk += typed
        chunk += [UInt8(crc >> 24), UInt8((crc >> 16) & 0xFF), UInt8((crc >> 8) & 0xFF), UInt8(crc & 0xFF)]
        var out = Data(png.prefix(33))
        out.append(contentsOf: chunk)
        out.append(png.dropFirst(33))
        return out
    }

    static func bigEndian(_ values: [Double]) -> [UInt8] {
        values.flatMap { v -> [UInt8] in
            let n = UInt32((v * 100_000).rounded())
            return [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
        }
    }

    static func untaggedPNG() throws -> Data {
        try PNGCoder().encode(Image(pixels: TestImages.pattern(), hasAlpha: false), format: .png, options: EncodeOptions())
    }

    static let ignore: DecodeOptions = {
        var options = DecodeOptions()
        options.colorManagement = .ignore
        return options
    }()

    @Test("Given a PNG with cICP Display P3, when decoded, then it matches LittleCMS converting Display P3")
    func cicpDisplayP3() throws {
        let png = Self.inserting("cICP", [12, 13, 0, 1], into: try Self.untaggedPNG())
        let metadata = try PNGCoder().readMetadata(png)
        #expect(metadata.colorProfile?.name == "Display P3 (CICP 12/13)")
        let decoded = try PNGCoder().decode(png, options: .default)
        let reference = TestProfiles.reference(TestImages.pattern(), from: TestProfiles.profile(TestProfiles.displayP3))
        let difference = ColorDifference(decoded.pixels, reference)
        #expect(difference.mean <= 0.5 && difference.p95 <= 1.0, "\(difference)")
    }

    @Test("Given a PNG with cICP and an sRGB chunk, when decoded, then cICP wins; sRGB alone leaves pixels untouched")
    func precedence() throws {
        let untagged = try Self.untaggedPNG()
        let both = Self.inserting("cICP", [12, 13, 0, 1], into: Self.inserting("sRGB", [0], into: untagged))
        #expect(try PNGCoder().readMetadata(both).colorProfile?.kind == .cicp(CICP(
            colorPrimaries: 12, transferCharacteristics: 13, matrixCoefficients: 0, fullRange: true)))
        let sRGB = Self.inserting("sRGB", [0], into: untagged)
        #expect(try PNGCoder().readMetadata(sRGB).colorProfile?.kind == .sRGB)
        #expect(try PNGCoder().decode(sRGB, options: .default).pixels.bytes == TestImages.pattern().bytes)
        // gAMA 1/2.2 next to sRGB chromaticities is what writers put beside sRGB pixels.
        let gamma = Self.inserting(
            "gAMA", Self.bigEndian([0.45455]),
            into: Self.inserting("cHRM", Self.bigEndian([0.3127, 0.329, 0.64, 0.33, 0.3, 0.6, 0.15, 0.06]), into: untagged))
        #expect(try PNGCoder().decode(gamma, options: .default).pixels.bytes == TestImages.pattern().bytes)
    }

    @Test("Given a PNG with gAMA and cHRM only, when decoded, then it matches LittleCMS with the same primaries and gamma")
    func gammaAndChromaticities() throws {
        let space = TestProfiles.RGBSpace(
            name: "gAMA 1/1.8 + Adobe RGB primaries", white: (0.3127, 0.3290), red: (0.64, 0.33), green: (0.21, 0.71),
            blue: (0.15, 0.06), curveType: 1, curveParameters: [1.8])
        let png = Self.inserting(
            "gAMA", Self.bigEndian([1 / 1.8]),
            into: Self.inserting("cHRM", Self.bigEndian([0.3127, 0.329, 0.64, 0.33, 0.21, 0.71, 0.15, 0.06]), into: try Self.untaggedPNG()))
        let decoded = try PNGCoder().decode(png, options: .default)
        let reference = TestProfiles.reference(TestImages.pattern(), from: TestProfiles.profile(space))
        let difference = ColorDifference(decoded.pixels, reference)
        #expect(difference.mean <= 0.5 && difference.p95 <= 1.0, "\(difference)")
        #expect(try PNGCoder().decode(png, options: Self.ignore).pixels.bytes == TestImages.pattern().bytes)
    }
}
