import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// `s3://` keys with `.` or `..` segments, written plainly or percent-encoded (V-12): refused
/// before anything reaches the endpoint, so the bucket the rules checked is always the bucket a
/// gateway or proxy that removes dot segments would read. The endpoint is a loopback test
/// server that counts every request.
@Suite(.timeLimit(.minutes(2))) struct ServiceS3KeyTests {
    /// Sources whose key has a dot segment once decoded, each sent base64-encoded (the service
    /// sees exactly these bytes) and as a plain source.
    static let dotted = [
        "s3://b/%2e%2e/other/x", "s3://b/%2E%2E/other/x", "s3://b/%2e%2E/other/x", "s3://b/%2E%2e/other/x",
        "s3://b/.%2e/other/x", "s3://b/%2e./other/x", "s3://b/../other/x", "s3://b/a/%2e/x", "s3://b/./x",
        "s3://b/a/%2e%2e", "s3://b/a/..", "s3://b/x%2F..%2Fother", "s3://b/x%2f%2e%2e%2fother%2fx", "s3://b/%2e%2e/%2e%2e/other/x",
        "s3://b/%2e%2e",
        // A combining mark after the `/` (fuzz finding: as Swift Characters it joined the `/`).
        "s3://b/./%DB%96x", "s3://b/a/../%CC%81x",
    ]

    @Test("Given an s3:// key with a dot segment in any encoding, then 400 naming the dot segment, and no request reaches the endpoint")
    func dotSegmentsRefused() async throws {
        // The S3 endpoint: every request it gets is counted.
        let endpoint = HTTPTestServer()
        try await endpoint.start()
        defer { Task { await endpoint.shutdown() } }
        endpoint.route("/b/ok.png", .ok(try TestImages.png(width: 20, height: 10), contentType: "image/png"))
        let configured = try await ServiceHarness.start { configuration in
            configuration.s3 = S3Configuration(
                endpoint: URL(string: "http://127.0.0.1:\(endpoint.port)")!, credentials: nil, allowedBuckets: ["b"])
        }
        defer { Task { await configured.stop() } }

        let fine = try await configured.get("/insecure/w:10/plain/s3://b/ok.png@png")
        #expect(fine.status == 200, "\(fine.text)")
        #expect(endpoint.totalRequestCount == 1)
        // Dots inside a segment are part of a key, not a dot segment.
        endpoint.route("/b/a..b/.x./...", .ok(try TestImages.png(width: 20, height: 10), contentType: "image/png"))
        let dotsInside = try await configured.get("/insecure/w:10/plain/s3://b/a..b/.x./...@png")
        #expect(dotsInside.status == 200, "\(dotsInside.text)")
        #expect(endpoint.totalRequestCount == 2)

        for source in Self.dotted {
            let encoded = Base64URL.encode(Array(source.utf8))
            for path in ["/insecure/w:10/\(encoded).png", "/insecure/w:10/plain/\(source)@png"] {
                let reply = try await configured.get(path)
                #expect(reply.status == 400, "\(source) \(path): \(reply.status) \(reply.text)")
                #expect(reply.text.contains("dot segment"), "\(source) \(path): \(reply.text)")
            }
        }
        #expect(endpoint.totalRequestCount == 2, "a dotted key reached the endpoint")
    }

    @Test("Given a dot segment in a location's key, then the library refuses it too: the s3:// URL, the request URL and the signer")
    func libraryRefuses() throws {
        for source in Self.dotted {
            #expect(throws: WebImageError.self, "\(source)") { try S3ObjectLocation(URL(string: source)!) }
        }
        let configuration = S3Configuration(endpoint: URL(string: "http://127.0.0.1:9")!, credentials: nil)
        for key in ["..", ".", "a/../b", "a/./b", "a/..", "../b"] {
            #expect(throws: WebImageError.self, "\(key)") {
                try configuration.requestURL(for: S3ObjectLocation(bucket: "b", key: key))
            }
        }
        for bucket in [".", ".."] {
            #expect(throws: WebImageError.self, "\(bucket)") {
                try configuration.requestURL(for: S3ObjectLocation(bucket: bucket, key: "x"))
            }
        }
        let kept = try configuration.requestURL(for: S3ObjectLocation(bucket: "b", key: "a..b/.x./..."))
        #expect(kept.absoluteString == "http://127.0.0.1:9/b/a..b/.x./...")
    }
}
