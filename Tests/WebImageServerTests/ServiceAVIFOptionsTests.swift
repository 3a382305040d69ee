import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// `avif_options` (`avifo`, imgproxy's `avif_options:%subsample`) and the `avif-subsample`
/// setting: `auto` halves the chroma planes below quality 90 and keeps them from it, `on`
/// always halves them, `off` never does; the URL's argument overrides the setting.
@Suite struct ServiceAVIFOptionsTests {
    /// Whether the AVIF's AV1 configuration (`av1C`) says 4:2:0: both subsampling bits set.
    static func isSubsampled(_ avif: Data) throws -> Bool {
        let bytes = [UInt8](avif), tag = Array("av1C".utf8)
        let start = try #require((0...(bytes.count - 7)).first { Array(bytes[$0..<$0 + 4]) == tag }, "no av1C box")
        let flags = bytes[start + 6]
        return flags & 0b0000_1000 != 0 && flags & 0b0000_0100 != 0
    }

    static func source() throws -> Data { try TestImages.png(width: 48, height: 32) }

    @Test("Given avif_options subsample, when an AVIF is made at a quality, then its chroma is subsampled as documented",
          arguments: [
              ("", 60, true), ("", 95, false), ("avifo:auto", 60, true), ("avifo:auto", 95, false),
              ("avifo:on", 95, true), ("avif_options:on", 60, true), ("avifo:off", 60, false), ("avif_options:off", 30, false),
              ("avifo:", 60, true), ("avifo:", 95, false),
          ])
    func subsampleFollowsTheOption(options: String, quality: Int, subsampled: Bool) async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/a.png", .ok(try Self.source(), contentType: "image/png"))
        let path = [options, "q:\(quality)"].filter { !$0.isEmpty }.joined(separator: "/")
        let reply = try await harness.get(harness.plainPath("/a.png", options: path, ext: "avif"))
        #expect(reply.status == 200, "\(path): \(reply.text)")
        #expect(try Self.isSubsampled(reply.body) == subsampled, "\(path)")
        let decoded = try TestImages.decode(reply.body)
        #expect(decoded.width == 48 && decoded.height == 32)
    }

    @Test("Given the avif-subsample setting, then requests without avifo follow it and the URL's avifo overrides it")
    func settingIsTheDefaultAndTheURLOverrides() async throws {
        let harness = try await ServiceHarness.start { $0.avifOptions = AVIFOptions(subsample: .off) }
        defer { Task { await harness.stop() } }
        harness.origin.route("/a.png", .ok(try Self.source(), contentType: "image/png"))
        let byDefault = try await harness.get(harness.plainPath("/a.png", options: "q:60", ext: "avif"))
        #expect(try Self.isSubsampled(byDefault.body) == false)
        let overridden = try await harness.get(harness.plainPath("/a.png", options: "avifo:on/q:60", ext: "avif"))
        #expect(try Self.isSubsampled(overridden.body) == true)
        let empty = try await harness.get(harness.plainPath("/a.png", options: "avifo:/q:60", ext: "avif"))
        #expect(try Self.isSubsampled(empty.body) == false)
    }

    @Test("Given the avif-subsample setting, then auto, on and off parse and anything else is refused")
    func settingParses() throws {
        for (text, expected) in [("auto", AVIFEncodeSettings.ChromaSubsampling.auto), ("on", .on), ("off", .off)] {
            #expect(try ImageServiceSettings.configuration(from: ["avif-subsample": [text]]).0.avifOptions.subsample == expected)
        }
        #expect(try ImageServiceSettings.configuration(from: [:]).0.avifOptions.subsample == nil)
        for bad in ["ON", "maybe", "4:2:0", "1", "on:off"] {
            #expect(throws: (any Error).self, "\(bad)") { try ImageServiceSettings.configuration(from: ["avif-subsample": [bad]]) }
        }
    }

    @Test("Given hostile avif_options arguments, then 400 naming the option, and no AVIF is made")
    func hostileArgumentsAre400() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/a.png", .ok(try Self.source(), contentType: "image/png"))
        let cases = [
            "avifo:maybe", "avifo:ON", "avifo:Off", "avifo:1", "avifo:true", "avifo:on:8", "avifo:on:", "avif_options",
            "avifo:%00", "avifo:%20on", "avifo:" + String(repeating: "o", count: 4_000), "avif_options:auto:auto:auto",
        ]
        for options in cases {
            let reply = try await harness.get(harness.plainPath("/a.png", options: options, ext: "avif"))
            #expect(reply.status == 400, "\(options.prefix(40)): \(reply.status)")
            // A segment without a colon is not an option but the start of a base64 source URL,
            // and a NUL may end the path: still 400s, for another reason.
            if options.contains(":"), !options.contains("%00") { #expect(reply.text.contains("avif"), "case \(options.prefix(40))") }
        }
    }

    @Test("Given avifo, then it is part of the result's identity: different subsampling, different canonical form and body")
    func optionChangesTheResultKey() async throws {
        let plain = try ProcessingOptions.parse(segments: ["q:60"], presets: PresetTable())
        let off = try ProcessingOptions.parse(segments: ["avifo:off", "q:60"], presets: PresetTable())
        let alias = try ProcessingOptions.parse(segments: ["avif_options:off", "q:60"], presets: PresetTable())
        let empty = try ProcessingOptions.parse(segments: ["avifo:", "q:60"], presets: PresetTable())
        #expect(plain.canonicalForm != off.canonicalForm)
        #expect(off.canonicalForm == alias.canonicalForm)
        #expect(empty.canonicalForm == plain.canonicalForm)
        let settingOff = try ImageServiceSettings.configuration(from: ["avif-subsample": ["off"]]).0
        let settingDefault = try ImageServiceSettings.configuration(from: [:]).0
        #expect(settingOff.outputFingerprint != settingDefault.outputFingerprint)
    }
}
