import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// The S3 servers this machine can run (storage always; Ceph's gateway when installed).
private let backends = S3TestBackend.available(for: "ServiceS3RefusalTests")

/// An `s3://` source S3 refuses (V-12): the client's reason names S3's status and error code
/// (`AccessDenied`, `SignatureDoesNotMatch`, …), never the credentials' source or the endpoint.
@Suite("Service: S3 refusals name S3's error code", .timeLimit(.minutes(3)))
struct ServiceS3RefusalTests {
    static func error(code: String, message: String) -> Data {
        Data("<?xml version=\"1.0\"?><Error><Code>\(code)</Code><Message>\(message)</Message></Error>".utf8)
    }

    @Test("Given an endpoint that answers S3 error documents, then 502 names the status and code, and 404 is not found")
    func codesFromErrorDocuments() async throws {
        let endpoint = HTTPTestServer()
        try await endpoint.start()
        defer { Task { await endpoint.shutdown() } }
        endpoint.route("/b/denied", HTTPTestServer.Response(status: 403, body: Self.error(code: "AccessDenied", message: "Access Denied")))
        endpoint.route("/b/slow", HTTPTestServer.Response(status: 503, body: Self.error(code: "SlowDown", message: "Please reduce your request rate.")))
        endpoint.route("/b/plain", HTTPTestServer.Response(status: 500, body: Data("oops".utf8)))
        endpoint.route("/b/gone", HTTPTestServer.Response(status: 404, body: Self.error(code: "NoSuchKey", message: "The specified key does not exist.")))
        let harness = try await ServiceHarness.start { configuration in
            configuration.s3 = S3Configuration(
                endpoint: URL(string: "http://127.0.0.1:\(endpoint.port)")!, credentials: AWSCredentials(accessKeyID: "AKID", secretAccessKey: "secret"),
                credentialsSource: "/etc/secret/aws-credentials")
        }
        defer { Task { await harness.stop() } }
        for (key, status, words) in [
            ("denied", 502, "S3 refused the request (403 AccessDenied)"), ("slow", 502, "S3 refused the request (503 SlowDown)"),
            ("plain", 502, "S3 refused the request (500)"), ("gone", 404, "source not found"),
        ] {
            let reply = try await harness.get("/insecure/w:10/plain/s3://b/\(key)@png")
            #expect(reply.status == status, "\(key): \(reply.text)")
            #expect(reply.text.contains(words), "\(key): \(reply.text)")
            // What to check is for the operator's log, not the client.
            #expect(!reply.text.contains("/etc/secret") && !reply.text.contains("127.0.0.1"), "\(key): \(reply.text)")
        }
    }

    @Test("Given a wrong secret, then the service's 502 names SignatureDoesNotMatch", arguments: backends)
    func wrongSecret(backend: S3TestBackend) async throws {
        let storage = try await S3TestEndpoint.start(backend, objects: [
            (bucket: "images", key: "src.png", data: try TestImages.png(width: 40, height: 20))
        ])
        defer { storage.stop() }
        let harness = try await ServiceHarness.start(allowLoopback: false) { configuration in
            configuration.s3 = S3Configuration(
                endpoint: storage.endpoint, region: "us-east-1",
                credentials: AWSCredentials(accessKeyID: storage.accessKeyID, secretAccessKey: "not-the-secret"))
        }
        defer { Task { await harness.stop() } }
        let refused = try await harness.get("/insecure/w:10/plain/s3://images/src.png@png")
        #expect(refused.status == 502, "\(refused.text)")
        #expect(refused.text.contains("S3 refused the request (403 SignatureDoesNotMatch)"), "\(refused.text)")
        #expect(storage.requests() == ["GET /images/src.png"])
    }
}
