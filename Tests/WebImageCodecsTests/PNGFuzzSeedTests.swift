import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("PNG fuzz seeds")
struct PNGFuzzSeedTests {
    @Test(
        "Given every fuzz seed, when decoded, read and opened as animation, then each ends with an image or a WebImageError within 2 s",
        .enabled(if: Corpus.isAvailable))
    func everySeedIsHandled() throws {
        let coder = PNGCoder()
        #expect(PNGCorpus.fuzzSeeds.count > 1_000)
        for path in PNGCorpus.fuzzSeeds {
            let data = try Corpus.data(path)
            let start = ContinuousClock.now
            Self.expectImageOrWebImageError(path) { _ = try coder.decode(data, options: .default) }
            Self.expectImageOrWebImageError(path) { _ = try coder.readMetadata(data) }
            Self.expectImageOrWebImageError(path) {
                let source = try coder.makeAnimatedSource(data, options: .default)
                for index in 0..<min(source.frameCount, 4) { _ = try source.frame(at: index) }
            }
            _ = coder.isAnimated(data)
            // Hang guard only (no performance assertion): one file must never take seconds.
            #expect(ContinuousClock.now - start < .seconds(2), "\(path)")
        }
    }

    @Test(
        "Given every fuzz seed fed to the incremental decoder in halves, then it never crashes",
        .enabled(if: Corpus.isAvailable))
    func incrementalSeeds() throws {
        for path in PNGCorpus.fuzzSeeds {
            let data = try Corpus.data(path)
            let decoder = PNGCoder().makeIncrementalDecoder(options: .default)
            Self.expectImageOrWebImageError(path) { _ = try decoder.update(data.prefix(data.count / 2), isComplete: false) }
        }
    }

    static func expectImageOrWebImageError(_ path: String, _ body: () throws -> Void) {
        do {
            try body()
        } catch {
            #expect(error is WebImageError, "\(path): \(error)")
        }
    }
}
