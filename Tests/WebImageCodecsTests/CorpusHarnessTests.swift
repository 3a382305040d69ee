import Foundation
import Testing
import WebImageCore
import WebImageTesting

@Suite("Corpus harness")
struct CorpusHarnessTests {
    @Test("Given the shared corpus, then the manifest and reference renderings are readable", .enabled(if: Corpus.isAvailable))
    func manifestReadable() throws {
        #expect(Corpus.manifest.count > 1_000)
        let refs = Corpus.referenceRenderings(for: "apng/ball.png")
        #expect(refs.count == 20)
        let first = try ReferencePNG.read(corpusPath: refs[0])
        #expect(first.width == 100 && first.height == 100)
    }
}
