import Foundation
import Testing
import WebImageTesting
@testable import WebImage

/// The scale an `@2x`/`@3x` file name gives an image, through every loader.
@Suite("Loaders: scale from the file name")
struct LoadingFileNameScaleTests {
    @Test("Given an @2x file name, then the network, a file and the disk cache all give scale 2; an explicit scale wins")
    func fileNameScaleEverywhere() async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/icon@2x.raw", HTTPTestServer.Response.ok(RawTestCoder.encode(width: 8, height: 8)))
            let network = try await loadFinal(downloader, server.url("/icon@2x.raw"), context: rawContext()).get()
            #expect(network.image?.scale == 2)

            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-scale-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("icon@3x.raw")
            try RawTestCoder.encode(width: 6, height: 6).write(to: file)
            let local = try await loadFinal(LocalImageLoader(), file, context: rawContext()).get()
            #expect(local.image?.scale == 3)

            var explicit = rawContext()
            explicit.imageScaleFactor = 1
            let overridden = try await loadFinal(downloader, server.url("/icon@2x.raw"), context: explicit).get()
            #expect(overridden.image?.scale == 1)
        }
    }
}
