import Foundation
import Testing
import WebImageTesting

/// The S3 servers this machine can run (moto always; Ceph's gateway when installed).
private let backends = S3TestBackend.available(for: "S3FetchCommandTests")

@Suite("webimage fetch s3:// with the standard AWS variables, against moto and Ceph RGW (V-12)")
struct S3FetchCommandTests {
    /// The AWS variables for `server`, with a home directory of no `~/.aws` files.
    func environment(_ server: S3TestEndpoint, home: URL, secret: String? = nil) -> [String: String] {
        [
            "AWS_ACCESS_KEY_ID": server.accessKeyID, "AWS_SECRET_ACCESS_KEY": secret ?? server.secretAccessKey,
            "AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL_S3": server.endpoint.absoluteString, "HOME": home.path,
            "AWS_PROFILE": "", "AWS_SESSION_TOKEN": "",
        ]
    }

    @Test("Given AWS_* variables for the endpoint, when s3:// URLs are fetched, then the object is written, a missing key fails with 404 and a wrong secret with SignatureDoesNotMatch", arguments: backends)
    func fetchesS3(backend: S3TestBackend) async throws {
        let data = try FetchFixtures.png()
        let server = try await S3TestEndpoint.start(backend, objects: [(bucket: "images", key: "cats/cat.png", data: data)])
        defer { server.stop() }
        let home = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let cache = home.appendingPathComponent("cache"), out = home.appendingPathComponent("out")

        let fetched = try await CLIRunner.run(
            ["fetch", "s3://images/cats/cat.png", "--json", "--cache-dir", cache.path, "--out", out.path],
            environment: environment(server, home: home))
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let summary = try LoadSummaryJSON.parse(fetched.stdout)
        #expect(summary.downloaded == 1 && summary.failed == 0)
        #expect(try Data(contentsOf: out.appendingPathComponent("cat.png")) == data)
        #expect(server.requests() == ["GET /images/cats/cat.png"])

        let missing = try await CLIRunner.run(
            ["fetch", "s3://images/cats/none.png", "--cache-dir", cache.path], environment: environment(server, home: home))
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("invalidDownloadStatusCode"), "\(missing.stderr)")
        #expect(missing.stderr.contains("404"))

        let refused = try await CLIRunner.run(
            ["fetch", "s3://images/cats/cat.png", "--cache-dir", home.appendingPathComponent("cache2").path],
            environment: environment(server, home: home, secret: "wrong-secret"))
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("SignatureDoesNotMatch"), "\(refused.stderr)")
        #expect(refused.stderr.contains("check the credentials (environment variables)"))
        #expect(server.requests().count == 3)
    }
}
