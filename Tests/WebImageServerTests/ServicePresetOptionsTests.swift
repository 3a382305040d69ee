import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// Presets holding the options of the imgproxy set added last: each works from a preset as it
/// does in the URL, and a preset with a bad value is refused when it is defined (at start).
@Suite(.timeLimit(.minutes(3))) struct ServicePresetOptionsTests {
    /// One valid use of each option (with what it needs to show).
    static let options = [
        "a:10:1.2:0.8", "br:-20", "co:1.3", "sa:0", "mc:1:ff8800", "dt:1:000033:ffcc00", "col:0.3:ff0000:1",
        "gr:0.6:000:up:0:0.5", "ush:always:2:24", "w:20/ra:nearest", "c:30:10/car:1:1", "bg:fff/bga:0.5/pd:2",
        "jpgo:1:1:::0:3", "pngo:1:1:16", "webpo:lossless", "avifo:off", "da:1", "pgs:2", "msr:1", "msfs:1000000",
        "maf:3", "mafr:1", "mrd:16", "aq:s2:70:40:90:2", "aq:size:2000", "f:best",
    ]

    /// The extension each option is shown with.
    static func ext(_ options: String) -> String? {
        if options.hasPrefix("jpgo") || options.hasPrefix("aq:size") { return "jpg" }
        if options.hasPrefix("webpo") { return "webp" }
        if options.hasPrefix("avifo") { return "avif" }
        if options.hasPrefix("aq:s2") { return "webp" }
        if options.hasPrefix("f:best") { return nil }
        return "png"
    }

    @Test("Given a preset holding an option, then the answer is the one the option gives in the URL")
    func presetsAnswerAsTheURL() async throws {
        var presets = PresetTable()
        for (index, options) in Self.options.enumerated() { try presets.define("p\(index)", options: options) }
        let harness = try await ServiceHarness.start { $0.presets = presets }
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 40, height: 30), contentType: "image/png"))
        harness.origin.route("/anim.gif", .ok(try TestImages.animatedGIF(frames: 3), contentType: "image/gif"))
        for (index, options) in Self.options.enumerated() {
            let source = options.hasPrefix("da") || options.hasPrefix("pgs") || options.hasPrefix("maf") ? "/anim.gif" : "/src.png"
            let accept = [("Accept", "image/avif,image/webp,image/*")]
            let direct = try await harness.get(harness.plainPath(source, options: options, ext: Self.ext(options)), headers: accept)
            let preset = try await harness.get(harness.plainPath(source, options: "pr:p\(index)", ext: Self.ext(options)), headers: accept)
            #expect(direct.status == 200, "\(options): \(direct.text.prefix(200))")
            #expect(preset.status == direct.status && preset.body == direct.body, "\(options): the preset answered \(preset.status)")
            #expect(preset.header("Content-Type") == direct.header("Content-Type"), "\(options)")
        }
    }

    @Test("Given a preset with a hostile value of one of these options, then defining it fails, naming the option")
    func hostilePresetsAreRefused() throws {
        var count = 0
        for (name, argumentLists) in ServiceHostileOptionValuesTests.hostile {
            for case let arguments? in argumentLists {
                var presets = PresetTable()
                let segment = name + arguments
                #expect(throws: ImageServiceError.self, "\(segment)") { try presets.define("bad", options: "w:10/" + segment) }
                count += 1
            }
        }
        #expect(count > 200)
    }
}
