import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// `info` and `convert` reading http, file and data URLs through the library's loaders.
@Suite("webimage info and convert on URLs")
struct URLInputCommandTests {
    /// A server with a PNG at /a.png, an HTML page at /page.png; /missing.png is a 404.
    /// Failing inputs and a fragment of the message each must produce.
    static let badInputs = [
        ("/missing.png", "invalid download status code 404"),
        ("/page.png", "not a recognised image format"),
        ("unreachable", "transport error"),
    ]

    /// The URL for a ``badInputs`` path, and the timeout flags for it: a short timeout only for
    /// the refused connection (retried until then); the test server gets the default, as a busy
    /// machine may be slow to answer.
    static func input(_ path: String, on server: HTTPTestServer) -> (url: String, timeout: [String]) {
        path == "unreachable" ? ("http://127.0.0.1:1/a.png", ["--timeout", "2"]) : (server.url(path).absoluteString, [])
    }

    static func routes(_ server: HTTPTestServer) throws -> Data {
        let data = try FetchFixtures.png()
        server.route("/a.png", .ok(data, contentType: "image/png"))
        server.route("/page.png", .ok(Data("<html><body>hello</body></html>".utf8), contentType: "text/html"))
        return data
    }

    @Test("Given http, file and data URLs of a PNG, when info --json runs, then each reports the format and size and the exit status is 0")
    func infoSuccess() async throws {
        try await FetchFixtures.withServer { server, _, out in
            let data = try Self.routes(server)
            let file = out.appendingPathComponent("a.png")
            try data.write(to: file)
            let dataURL = "data:image/png;base64," + data.base64EncodedString()
            let result = try await CLIRunner.run(["info", "--json", server.url("/a.png").absoluteString, file.absoluteString, dataURL])
            #expect(result.status == 0, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
            let objects = try InfoCommandTests.jsonObjects(result.stdout)
            #expect(objects.count == 3)
            for object in objects {
                #expect(object["format"] as? String == "png")
                #expect(object["width"] as? Int == FetchFixtures.size.width)
                #expect(object["height"] as? Int == FetchFixtures.size.height)
                #expect(object["error"] is NSNull)
            }
            #expect(server.requestCount("/a.png") == 1)
        }
    }

    @Test(
        "Given a bad URL, when info runs, then the report names the failure and the exit status is non-zero",
        arguments: badInputs)
    func infoFailure(path: String, message: String) async throws {
        try await FetchFixtures.withServer { server, _, _ in
            _ = try Self.routes(server)
            let (url, timeout) = Self.input(path, on: server)
            let result = try await CLIRunner.run(["info", "--json", url] + timeout)
            #expect(result.status != 0)
            let object = try #require(try InfoCommandTests.jsonObjects(result.stdout).first)
            let error = try #require(object["error"] as? String, "\(object)")
            #expect(error.contains(message), "\(error)")
            #expect(object["file"] as? String == url)
        }
    }

    @Test("Given a good and a missing URL, when info prints its table, then the good one is ok, the missing one an error, and the exit status is non-zero")
    func infoTable() async throws {
        try await FetchFixtures.withServer { server, _, _ in
            _ = try Self.routes(server)
            let result = try await CLIRunner.run(["info", server.url("/a.png").absoluteString, server.url("/missing.png").absoluteString])
            #expect(result.status != 0)
            let lines = result.stdout.split(separator: "\n")
            #expect(lines.contains { $0.contains("/a.png") && $0.hasSuffix("ok") })
            #expect(lines.contains { $0.contains("/missing.png") && $0.contains("error: cannot load: invalid download status code 404") })
        }
    }

    @Test("Given an http URL, when converted to WebP as a thumbnail, then the file decodes at the thumbnail size", .enabled(if: CodersManager.shared.canEncode(.webp)))
    func convertSuccess() async throws {
        try await FetchFixtures.withServer { server, _, out in
            _ = try Self.routes(server)
            let destination = out.appendingPathComponent("a.webp")
            let result = try await CLIRunner.run(["convert", server.url("/a.png").absoluteString, destination.path, "--thumbnail", "12"])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stdout.contains("webp 12x8"))
            let image = try CodersManager.shared.decode(Data(contentsOf: destination), options: .default)
            #expect(image.pixelSize == PixelSize(width: 12, height: 8))
        }
    }

    @Test(
        "Given a bad URL, when converted, then an error names it, nothing is written and the exit status is non-zero",
        arguments: badInputs)
    func convertFailure(path: String, message: String) async throws {
        try await FetchFixtures.withServer { server, _, out in
            _ = try Self.routes(server)
            let (url, timeout) = Self.input(path, on: server)
            let destination = out.appendingPathComponent("out.png")
            let result = try await CLIRunner.run(["convert", url, destination.path] + timeout)
            #expect(result.status != 0)
            #expect(result.stderr.contains("error:"))
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: destination.path))
        }
    }
}

/// `webimage fetch` given URLs the HTTP client would trap on (the hostile-input probe's F1).
@Suite("webimage fetch on unusable URLs")
struct FetchHostileURLTests {
    @Test("Given a URL whose port is above 65535 and a redirect to one, when fetch runs, then it exits with an error naming the problem, not a crash")
    func portAboveRange() async throws {
        try await FetchFixtures.withServer { server, cache, _ in
            server.route("/hop", .redirect(to: "http://127.0.0.1:99999/x.jpg"))
            for (url, expected) in [
                ("http://127.0.0.1:65536/x.jpg", "outside 1 … 65535"),
                (server.url("/hop").absoluteString, "redirected to an invalid URL"),
            ] {
                let result = try await CLIRunner.run(["fetch", "--cache-dir", cache.path, url])
                #expect(result.status == 1, "\(url): status \(result.status)\n\(result.stderr)")
                #expect(result.stderr.contains(expected), "\(result.stderr)")
            }
        }
    }
}
