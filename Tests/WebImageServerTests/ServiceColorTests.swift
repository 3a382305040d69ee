import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// G-3, V-2/V-6: the service converts tagged sources to sRGB and writes no profile by
/// default; `scp:0` (or `strip-color-profile = false`) answers in the source's colours with its
/// profile embedded.
@Suite(.timeLimit(.minutes(2))) struct ServiceColorTests {
    /// A PNG in Display P3 (an ICC profile LittleCMS makes from the CICP description).
    static func displayP3PNG() throws -> (data: Data, pixels: PixelBuffer) {
        let pixels = PixelBuffer.make(width: 48, height: 32) { out in
            for i in 0..<(48 * 32) {
                out[i * 4] = UInt8((i * 7) % 256)
                out[i * 4 + 1] = UInt8((i / 48) * 8)
                out[i * 4 + 2] = UInt8(255 - (i * 3) % 256)
                out[i * 4 + 3] = 255
            }
        }
        let p3 = ColorProfile(kind: .cicp(CICP(colorPrimaries: 12, transferCharacteristics: 13, matrixCoefficients: 0, fullRange: true)))
        let data = try PNGCoder().encode(Image(pixels: pixels, hasAlpha: false, colorProfile: p3), format: .png, options: EncodeOptions())
        return (data, pixels)
    }

    static func maxChannelDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
        zip(a.bytes, b.bytes).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    @Test func defaultConvertsToUntaggedSRGBAndScpZeroKeepsTheProfile() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        let (source, stored) = try Self.displayP3PNG()
        #expect(try PNGCoder().readMetadata(source).colorProfile != nil)
        harness.origin.route("/p3.png", .ok(source, contentType: "image/png"))
        let converted = try PNGCoder().decode(source, options: .default)
        #expect(Self.maxChannelDifference(converted.pixels, stored) > 8, "Display P3 differs from sRGB")

        let plain = try await harness.get(harness.plainPath("/p3.png", options: "w:48", ext: "png"))
        #expect(plain.status == 200)
        #expect(try PNGCoder().readMetadata(plain.body).colorProfile == nil)
        #expect(Self.maxChannelDifference(try PNGCoder().decode(plain.body, options: .default).pixels, converted.pixels) <= 1)

        for ext in ["png", "jpg", "webp"] {
            let kept = try await harness.get(harness.plainPath("/p3.png", options: "scp:0/w:48", ext: ext))
            #expect(kept.status == 200, "\(ext)")
            let profile = try CodersManager.shared.readMetadata(kept.body).colorProfile
            #expect(profile?.iccData != nil, "\(ext) carries the ICC profile")
        }
        var ignore = DecodeOptions()
        ignore.colorManagement = .ignore
        let keptPNG = try await harness.get(harness.plainPath("/p3.png", options: "scp:0/w:48", ext: "png"))
        #expect(Self.maxChannelDifference(try PNGCoder().decode(keptPNG.body, options: ignore).pixels, stored) <= 1)
        // Converted by the reader, the kept answer shows the same colours as the default one.
        #expect(Self.maxChannelDifference(try PNGCoder().decode(keptPNG.body, options: .default).pixels, converted.pixels) <= 1)
    }

    @Test func settingFalseKeepsProfilesUnlessTheURLSaysScp1() async throws {
        let (configuration, _, _) = try ImageServiceSettings.configuration(from: ["strip-color-profile": ["false"]])
        #expect(configuration.stripColorProfile == false)
        #expect(try ImageServiceSettings.configuration(from: [:]).0.stripColorProfile == true)
        let harness = try await ServiceHarness.start { $0.stripColorProfile = false }
        defer { Task { await harness.stop() } }
        harness.origin.route("/p3.png", .ok(try Self.displayP3PNG().data, contentType: "image/png"))
        let kept = try await harness.get(harness.plainPath("/p3.png", options: "w:48", ext: "png"))
        #expect(try PNGCoder().readMetadata(kept.body).colorProfile != nil)
        let stripped = try await harness.get(harness.plainPath("/p3.png", options: "scp:1/w:48", ext: "png"))
        #expect(try PNGCoder().readMetadata(stripped.body).colorProfile == nil)
    }
}
