import Foundation
import Testing
import WebImage
import WebImageTesting

/// Downloader throughput over loopback (docs/PERFORMANCE.md, "Downloader"). Gated: run with
/// `WEBIMAGE_BENCHMARK=1 swift test --skip-build --filter LoadingBenchmark`. Prints numbers;
/// asserts only that every load succeeded.
@Suite("Downloader benchmark", .enabled(if: ProcessInfo.processInfo.environment["WEBIMAGE_BENCHMARK"] == "1"))
struct LoadingBenchmarkTests {
    static let count = 1_000

    @Test("1,000 distinct small images: downloader vs curl --parallel-max 6")
    func throughput() async throws {
        let server = HTTPTestServer()
        try await server.start()
        let body = RawTestCoder.encode(width: 24, height: 24)  // 2,316 bytes
        for index in 0..<Self.count { server.route("/img/\(index).raw", .ok(body)) }
        let urls = (0..<Self.count).map { server.url("/img/\($0).raw") }

        // 1. ImageDownloader, default configuration (6 concurrent), bytes only and decoded.
        for (label, options) in [("bytes only", WebImageOptions.avoidDecodeImage), ("decoded", [])] {
            let downloader = ImageDownloader(configuration: testDownloaderConfiguration())
            _ = await loadFinal(downloader, urls[0], options: options)  // warm the connection pool
            let clock = ContinuousClock()
            let results = Recorder<String>()
            let elapsed = await clock.measure {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let once = ResumeOnce(continuation)
                    for url in urls {
                        _ = downloader.downloadImage(with: url, options: options) { result in
                            results.append(result.code)
                            if results.count == Self.count { once.resume(()) }
                        }
                    }
                }
            }
            try await downloader.shutdown()
            #expect(results.values.allSatisfy { $0 == "success" })
            print("BENCH downloader (\(label)), 6 concurrent: \(Self.count) images in \(Self.format(elapsed)) — \(Self.perRequest(elapsed)) per image")
        }

        // 2. curl --parallel --parallel-max 6 on the same URLs.
        let list = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-bench-\(UUID().uuidString).txt")
        try urls.map { "url = \"\($0.absoluteString)\"\noutput = \"/dev/null\"" }.joined(separator: "\n").write(to: list, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: list) }
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["--silent", "--parallel", "--parallel-max", "6", "--config", list.path]
        let curlElapsed = try ContinuousClock().measure {
            try curl.run()
            curl.waitUntilExit()
        }
        print("BENCH curl --parallel --parallel-max 6: \(Self.count) images in \(Self.format(curlElapsed)) — \(Self.perRequest(curlElapsed)) per image")

        // The per-request overhead over a bare AsyncHTTPClient GET is measured with the server in
        // another process: Benchmarks/run-request-overhead.sh (docs/PERFORMANCE.md).
        await server.shutdown()
    }

    static func format(_ duration: Duration) -> String {
        String(format: "%.3f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    static func perRequest(_ duration: Duration, count: Int = count) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.0f µs", seconds / Double(count) * 1e6)
    }
}
