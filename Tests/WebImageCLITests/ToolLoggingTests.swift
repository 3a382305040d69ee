import Foundation
import Testing

@Suite("webimage log output")
struct ToolLoggingTests {
    /// A file that is not an image, so that the load fails and the manager logs (at info level)
    /// that the URL went on the failed-URL list.
    static func withNonImage(_ body: (URL, URL) async throws -> Void) async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("notes.txt")
        try Data("not an image\n".utf8).write(to: file)
        try await body(file, directory.appendingPathComponent("cache"))
    }

    @Test("Given the default level, when a load fails, then only the error is printed, not the library's info lines")
    func quietByDefault() async throws {
        try await Self.withNonImage { file, cache in
            let result = try await CLIRunner.run(["fetch", file.absoluteString, "--cache-dir", cache.path])
            #expect(result.status != 0)
            #expect(result.stderr.contains("badImageData"))
            #expect(!result.stderr.contains("failed list"), "stderr: \(result.stderr)")
        }
    }

    @Test("Given WEBIMAGE_LOG_LEVEL=info, then the library's info lines appear on standard error")
    func levelFromEnvironment() async throws {
        try await Self.withNonImage { file, cache in
            let result = try await CLIRunner.run(
                ["fetch", file.absoluteString, "--cache-dir", cache.path], environment: ["WEBIMAGE_LOG_LEVEL": "INFO"])
            #expect(result.stderr.contains("info swift-web-image.manager"), "stderr: \(result.stderr)")
            #expect(result.stderr.contains("URL added to the failed list"))
            #expect(!result.stdout.contains("failed list"), "logs never go to standard output")
        }
    }
}
