import Foundation
import Testing
import WebImageTesting

@testable import WebImage

/// ``S3ObjectClient`` against a scripted endpoint on loopback: what each answer of S3 becomes,
/// bounds checked before the body is read, and no redirect followed.
@Suite(.timeLimit(.minutes(3))) struct S3ObjectClientTests {
    /// A client for `server` as a path-style endpoint, with a made-up key.
    static func client(_ server: HTTPTestServer) -> S3ObjectClient {
        S3ObjectClient(configuration: S3Configuration(
            endpoint: server.url(""), credentials: AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret")))
    }

    static func error(code: String, message: String) -> Data {
        Data("<?xml version=\"1.0\"?><Error><Code>\(code)</Code><Message>\(message)</Message></Error>".utf8)
    }

    @Test("Given S3's answers, then 200 is the object, 404 NoSuchKey is missing, and NoSuchBucket, 403 and a redirect are errors naming S3's code")
    func answers() async throws {
        let server = HTTPTestServer()
        try await server.start()
        let client = Self.client(server)
        server.route("/b/found", .ok(Data("entry".utf8)))
        server.route("/b/missing", HTTPTestServer.Response(status: 404, body: Self.error(code: "NoSuchKey", message: "The specified key does not exist.")))
        server.route("/nobucket/k", HTTPTestServer.Response(status: 404, body: Self.error(code: "NoSuchBucket", message: "The specified bucket does not exist")))
        server.route("/b/denied", HTTPTestServer.Response(status: 403, body: Self.error(code: "AccessDenied", message: "Access Denied")))
        server.route("/b/moved", .redirect(to: "http://127.0.0.1:9/elsewhere"))

        #expect(try await client.read(S3ObjectLocation(bucket: "b", key: "found"), maxBytes: 100) == .object(Data("entry".utf8)))
        #expect(try await client.read(S3ObjectLocation(bucket: "b", key: "missing"), maxBytes: 100) == .missing)
        for (bucket, key, words) in [("nobucket", "k", "does not exist"), ("b", "denied", "403 AccessDenied"), ("b", "moved", "302")] {
            await #expect {
                _ = try await client.read(S3ObjectLocation(bucket: bucket, key: key), maxBytes: 100)
            } throws: { error in
                "\(error)".contains(words)
            }
        }
        let get = try #require(server.requests(for: "/b/found").first)
        #expect(get.method == "GET" && get.header("Authorization")?.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") == true)
        #expect(get.header("X-Amz-Content-SHA256") == AWSSignatureV4.emptyPayloadHash)
        try await client.shutdown()
        await server.shutdown()
    }

    @Test("Given an object over the bound, then it is tooLarge: an announced length before any of the body, a chunked body at the bound")
    func bounds() async throws {
        let server = HTTPTestServer()
        try await server.start()
        let client = Self.client(server)
        // Announces a terabyte and sends ten bytes: the client must not wait for (or allocate) it.
        server.route("/b/announced", HTTPTestServer.Response.ok(Data(count: 10)).with { $0.declaredLength = 1 << 40 })
        server.route("/b/chunked", HTTPTestServer.Response.ok(Data(count: 5000)).with {
            $0.chunked = true
            $0.chunkSize = 1000
        })
        server.route("/b/exact", .ok(Data(count: 1000)))
        #expect(try await client.read(S3ObjectLocation(bucket: "b", key: "announced"), maxBytes: 1000) == .tooLarge)
        #expect(try await client.read(S3ObjectLocation(bucket: "b", key: "chunked"), maxBytes: 1000) == .tooLarge)
        #expect(try await client.read(S3ObjectLocation(bucket: "b", key: "exact"), maxBytes: 1000) == .object(Data(count: 1000)))
        try await client.shutdown()
        await server.shutdown()
    }

    @Test("Given a write, then it is a PUT of the body with its SHA-256 signed; a refusal is an error")
    func writes() async throws {
        let server = HTTPTestServer()
        try await server.start()
        let client = Self.client(server)
        server.route("/b/prefix/key", .status(200))
        server.route("/b/prefix/refused", HTTPTestServer.Response(status: 403, body: Self.error(code: "SignatureDoesNotMatch", message: "no")))
        let body = Data("webimage-result-v1\nbody".utf8)
        try await client.write(body, to: S3ObjectLocation(bucket: "b", key: "prefix/key"))
        let put = try #require(server.requests(for: "/b/prefix/key").first)
        #expect(put.method == "PUT")
        #expect(put.header("X-Amz-Content-SHA256") == AWSSignatureV4.hexSHA256("webimage-result-v1\nbody"))
        #expect(put.header("Content-Length") == String(body.count))
        await #expect {
            try await client.write(body, to: S3ObjectLocation(bucket: "b", key: "prefix/refused"))
        } throws: { error in
            "\(error)".contains("SignatureDoesNotMatch")
        }
        try await client.shutdown()
        await server.shutdown()
    }
}
