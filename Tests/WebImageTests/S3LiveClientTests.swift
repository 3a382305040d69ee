import Foundation
import Testing
import WebImageTesting

@testable import WebImage

/// The S3 servers this machine can run (moto always; Ceph's gateway when installed).
private let backends = S3TestBackend.available(for: "S3LiveClientTests")

/// ``S3ObjectClient`` and the SigV4 signer against real S3 servers (Ceph's RADOS Gateway and
/// moto): the keys of botocore's signing table, uploaded by another client (curl or botocore),
/// read and written through ours; and the error documents each server really sends.
@Suite("S3 object client and signing against moto and Ceph RGW (V-12)", .timeLimit(.minutes(5)))
struct S3LiveClientTests {
    /// The table's path-style cases on a loopback endpoint that name no version (none exists
    /// here) and no session token (neither server issued one): their keys carry spaces, `+`, `=`,
    /// `&`, Unicode, `%`, `~` and sub-delimiters. Keys with `.`/`..` segments are left out: the
    /// client refuses them before sending (``S3ObjectLocation/dotSegmentRefusal(bucket:key:)``).
    ///
    /// moto 5.2.1 refuses botocore's own signature of a key with a space, `+` or one of
    /// `!*'()@$,;:` (SignatureDoesNotMatch on the upload), a fault of the mock: Ceph's gateway
    /// accepts these signatures, as AWS does. The gateway's behaviour wins, so those keys are
    /// read only there.
    static func cases(for backend: S3TestBackend) throws -> [SigV4References.Case] {
        try SigV4References.load().cases.filter {
            $0.endpoint?.hasPrefix("http://127.0.0.1") == true && $0.versionId == nil && $0.sessionToken == nil
                && (backend != .moto || !$0.key.contains { " +!*'()@$,;:".contains($0) })
                && S3ObjectLocation.dotSegmentRefusal(bucket: $0.bucket, key: $0.key) == nil
        }
    }

    static func client(_ server: S3TestEndpoint, secret: String? = nil, accessKeyID: String? = nil) -> S3ObjectClient {
        S3ObjectClient(configuration: S3Configuration(
            endpoint: server.endpoint, region: "us-east-1",
            credentials: AWSCredentials(accessKeyID: accessKeyID ?? server.accessKeyID, secretAccessKey: secret ?? server.secretAccessKey)))
    }

    @Test("Given objects under the signing table's keys, when the object client reads each and writes a copy beside it, then every read is the object and every copy reads back", arguments: backends)
    func tableKeysRoundTrip(backend: S3TestBackend) async throws {
        let cases = try Self.cases(for: backend)
        #expect(cases.count >= (backend == .moto ? 3 : 8))
        let objects = cases.map { (bucket: $0.bucket, key: $0.key, data: Data("object \($0.name)".utf8)) }
        let server = try await S3TestEndpoint.start(backend, objects: objects)
        defer { server.stop() }
        let client = Self.client(server)
        for test in cases {
            let location = S3ObjectLocation(bucket: test.bucket, key: test.key)
            let read = try await client.read(location, maxBytes: 1000)
            #expect(read == .object(Data("object \(test.name)".utf8)), "\(test.name): \(test.key)")
            let copy = S3ObjectLocation(bucket: test.bucket, key: test.key + ".copy")
            try await client.write(Data("copy \(test.name)".utf8), to: copy)
            #expect(try await client.read(copy, maxBytes: 1000) == .object(Data("copy \(test.name)".utf8)), "\(test.name)")
        }
        // Each request reached the server with the path of botocore's URL for its key.
        let gets = server.requests().filter { $0.hasPrefix("GET ") && !$0.hasSuffix(".copy") }
        #expect(gets == cases.map { "GET " + (URL(string: $0.url)?.path(percentEncoded: true) ?? "") })
        try await client.shutdown()
    }

    @Test("Given what each server answers a missing key, a missing bucket, a wrong secret and an unknown key id, then the object client's results name S3's error code and what to check", arguments: backends)
    func errorDocuments(backend: S3TestBackend) async throws {
        let server = try await S3TestEndpoint.start(backend, objects: [(bucket: "results", key: "README", data: Data("store".utf8))])
        defer { server.stop() }
        let client = Self.client(server)
        #expect(try await client.read(S3ObjectLocation(bucket: "results", key: "none"), maxBytes: 100) == .missing)
        await #expect {
            _ = try await client.read(S3ObjectLocation(bucket: "no-such-bucket", key: "k"), maxBytes: 100)
        } throws: { error in
            "\(error)".contains("S3 bucket 'no-such-bucket' does not exist")
        }
        // moto's documents carry a <Message>; the gateway's are empty (`<Message></Message>`),
        // so only the status and the code are common to both.
        let wrongSecret = Self.client(server, secret: "not-the-secret")
        for attempt in [{ _ = try await wrongSecret.read(S3ObjectLocation(bucket: "results", key: "README"), maxBytes: 100) },
            { try await wrongSecret.write(Data([1]), to: S3ObjectLocation(bucket: "results", key: "x")) }] as [@Sendable () async throws -> Void]
        {
            await #expect {
                try await attempt()
            } throws: { error in
                let text = "\(error)"
                return text.contains("S3 refused the request (403 SignatureDoesNotMatch") && text.contains("check the credentials")
            }
        }
        let unknownKey = Self.client(server, accessKeyID: "AKIDUNKNOWNUNKNOWN00")
        await #expect {
            _ = try await unknownKey.read(S3ObjectLocation(bucket: "results", key: "README"), maxBytes: 100)
        } throws: { error in
            "\(error)".contains("S3 refused the request (403 InvalidAccessKeyId")
        }
        #expect(try await client.read(S3ObjectLocation(bucket: "results", key: "README"), maxBytes: 100) == .object(Data("store".utf8)))
        try await wrongSecret.shutdown()
        try await unknownKey.shutdown()
        try await client.shutdown()
    }
}
