import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// Issue #13, item 7 (SPEC D-3): one URL listed 100 times among 60 others, shuffled, in one
/// `webimage fetch` run, must reach the server once. The hot URL is a large JPEG, so its decode
/// takes a while: before the fix, a load of it starting while that decode ran found neither a
/// download to join nor an image in memory, and the server saw a second GET.
@Suite("webimage fetch: one URL among many reaches the server once (D-3)")
struct FetchCoalescingScenarioTests {
    /// A 2400×1800 photo-like JPEG (smooth gradients and texture), large enough that decoding it
    /// takes longer than a small download.
    static func largeJPEG() throws -> Data {
        let width = 2_400, height = 1_800
        var random = SeededRandom(seed: 7)
        let pixels = PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    let noise = UInt8(truncatingIfNeeded: random.next() & 31)
                    out[i] = UInt8(truncatingIfNeeded: x / 10) &+ noise
                    out[i + 1] = UInt8(truncatingIfNeeded: y / 8) &+ noise
                    out[i + 2] = UInt8(truncatingIfNeeded: (x + y) / 17)
                    out[i + 3] = 255
                }
            }
        }
        return try CodersManager.shared.encode(Image(pixels: pixels, format: .jpeg), format: .jpeg, options: .default)
    }

    @Test(
        "Given one URL 100 times among 60 others, shuffled, when fetched with 6 loads in flight, then every URL is requested once",
        .enabled(if: CodersManager.shared.canEncode(.jpeg)))
    func hundredRepeatsAmongSixty() async throws {
        try await FetchFixtures.withServer { server, cache, _ in
            server.route("/hot.jpg", .ok(try Self.largeJPEG(), contentType: "image/jpeg"))
            var urls = Array(repeating: server.url("/hot.jpg").absoluteString, count: 100)
            for index in 1...60 {
                server.route("/other-\(index).png", .ok(try FetchFixtures.png(seed: UInt8(index)), contentType: "image/png"))
                urls.append(server.url("/other-\(index).png").absoluteString)
            }
            var random = SeededRandom(seed: 13)
            urls.shuffle(using: &random)

            let result = try await CLIRunner.run(["fetch", "--json", "--cache-dir", cache.path, "--concurrency", "6"] + urls)
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let summary = try LoadSummaryJSON.parse(result.stdout)
            #expect(summary.requested == 160 && summary.downloaded == 61 && summary.coalesced == 99)
            #expect(server.requestCount("/hot.jpg") == 1, "the hot URL was downloaded more than once")
            let others = (1...60).map { server.requestCount("/other-\($0).png") }
            #expect(others.allSatisfy { $0 == 1 }, "requests per other URL: \(others)")
        }
    }
}
