import Foundation
import Testing
import WebImageTesting

/// The fuzz targets judge every input on its own: after an input, nothing of it stays in
/// the shared colour caches, where LeakSanitizer would read it as that input's leak. The built
/// replayer (`webimage-fuzz TARGET FILE…`, the same target code libFuzzer runs) checks it after
/// every input and stops with a finding when something stayed.
@Suite(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus")) struct FuzzReplayTests {
    /// The replayer SwiftPM built beside the `webimage` binary.
    static var replayer: URL? {
        CLIRunner.binary.map { $0.deletingLastPathComponent().appendingPathComponent("webimage-fuzz") }
            .flatMap { FileManager.default.isExecutableFile(atPath: $0.path) ? $0 : nil }
    }

    @Test("Given a CMYK JPEG and an ICC-profile JPEG, then decode, jpeg-scans and color-profile leave no colour transform behind", arguments: [
        "decode", "jpeg-scans", "color-profile", "header",
    ])
    func colourCachesLeftEmpty(target: String) throws {
        let replayer = try #require(Self.replayer, "webimage-fuzz is built by swift build --build-tests")
        let inputs = ["generated-valid/cmyk_64x48.jpg", "sdwebimage/TestICCProfile.jpg"].map { Corpus.url($0).path }
        let result = try CLIRunner.launch(replayer, [target] + inputs)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("finding"), "\(result.stderr)")
        #expect(result.stdout.components(separatedBy: ": ok").count == inputs.count + 1, "\(result.stdout)")
    }
}
