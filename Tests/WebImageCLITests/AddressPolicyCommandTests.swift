import Foundation
import Testing
import WebImageCore
import WebImageTesting

/// `--public-only` / `--allow-address` (SPEC R-1) and URLs no loader handles from every
/// command that loads URLs. Only loopback servers; a refused address is never connected to.
@Suite("webimage address policy and unsupported URLs")
struct AddressPolicyCommandTests {
    /// Inputs whose scheme no loader handles, and the scheme each must be refused by.
    static let unsupported = [
        ("ftp://127.0.0.1/x.png", "ftp"), ("gopher://127.0.0.1/x", "gopher"), ("javascript:alert(1)", "javascript"),
        ("foo:bar", "foo"),
    ]

    /// The command line loading `input` with `command`, in `directory` for files it writes.
    static func arguments(_ command: String, _ input: String, directory: URL) -> [String] {
        switch command {
        case "fetch": ["fetch", input, "--cache-dir", directory.appendingPathComponent("cache").path]
        case "prefetch": ["prefetch", "--from", directory.appendingPathComponent("list.txt").path, "--cache-dir", directory.appendingPathComponent("cache").path]
        case "info": ["info", input]
        default: ["convert", input, directory.appendingPathComponent("out.png").path]
        }
    }

    @Test(
        "Given a URL whose scheme no loader handles, when fetch, prefetch, info or convert loads it, then the exit status is non-zero and the message names the scheme",
        arguments: ["fetch", "prefetch", "info", "convert"], unsupported)
    func unsupportedScheme(command: String, input: (String, String)) async throws {
        let (url, scheme) = input
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data((url + "\n").utf8).write(to: directory.appendingPathComponent("list.txt"))
        let result = try await CLIRunner.run(Self.arguments(command, url, directory: directory))
        let output = result.stdout + result.stderr
        #expect(result.status != 0, "\(command) \(url) must fail\n\(output)")
        #expect(output.contains("no loader handles the \"\(scheme)\" scheme"), "\(output)")
        #expect(!output.contains("downloaded, 0 bytes"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out.png").path))
    }

    @Test(
        "Given a loopback server, when --public-only loads from it, then the address is refused as loopback; with --allow-address 127.0.0.1/32 it loads",
        arguments: ["fetch", "prefetch", "info", "convert"])
    func publicOnly(command: String) async throws {
        try await FetchFixtures.withServer { server, directory, _ in
            server.route("/a.png", .ok(try FetchFixtures.png(), contentType: "image/png"))
            let url = server.url("/a.png").absoluteString
            try Data((url + "\n").utf8).write(to: directory.appendingPathComponent("list.txt"))
            let base = Self.arguments(command, url, directory: directory)

            let refused = try await CLIRunner.run(base + ["--public-only"])
            let output = refused.stdout + refused.stderr
            #expect(refused.status != 0, "\(output)")
            #expect(output.contains("refused to connect to 127.0.0.1 by the address policy: loopback address"), "\(output)")
            #expect(server.connectionCount == 0)

            let allowed = try await CLIRunner.run(base + ["--public-only", "--allow-address", "127.0.0.1/32"])
            #expect(allowed.status == 0, "stdout: \(allowed.stdout)\nstderr: \(allowed.stderr)")
            #expect(server.requestCount("/a.png") == 1)
        }
    }

    @Test("Given a malformed --allow-address, or one without --public-only, then it is a usage error")
    func badAllowAddress() async throws {
        let bad = try await CLIRunner.run(["info", "--public-only", "--allow-address", "127.1/8", "x.png"])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("is not an IP address or CIDR range"), "\(bad.stderr)")
        let alone = try await CLIRunner.run(["info", "--allow-address", "127.0.0.1/32", "x.png"])
        #expect(alone.status != 0)
        #expect(alone.stderr.contains("add --public-only"), "\(alone.stderr)")
    }

    @Test("Given --help of each loading command, then --public-only and --allow-address are documented", arguments: ["fetch", "prefetch", "info", "convert"])
    func help(command: String) async throws {
        let result = try await CLIRunner.run([command, "--help"])
        #expect(result.stdout.contains("--public-only"))
        #expect(result.stdout.contains("--allow-address <cidr>"))
    }
}
