import Foundation
import Testing
import WebImage
@testable import WebImageServer
import WebImageTesting

/// The S3 servers this machine can run (storage always; Ceph's gateway when installed).
private let backends = S3TestBackend.available(for: "ServiceS3Tests")

/// `s3://` sources of the service against Ceph's RADOS Gateway and moto on loopback (V-12). The
/// service keeps its default public-only address policy: the endpoint is the operator's setting.
@Suite("Service: s3:// sources against moto and Ceph RGW")
struct ServiceS3Tests {
    @Test("Given --use-s3 with an S3 endpoint, then an s3:// source renders with the right geometry, a missing key is 404, and a denied bucket is 403 without a request to the endpoint", arguments: backends)
    func s3Sources(backend: S3TestBackend) async throws {
        let storage = try await S3TestEndpoint.start(backend, objects: [
            (bucket: "images", key: "src.png", data: try TestImages.png(width: 400, height: 200)),
            (bucket: "secret", key: "src.png", data: try TestImages.png(width: 40, height: 20)),
        ])
        defer { storage.stop() }
        let harness = try await ServiceHarness.start(allowLoopback: false) { configuration in
            configuration.s3 = S3Configuration(
                endpoint: storage.endpoint, region: "us-east-1",
                credentials: AWSCredentials(accessKeyID: storage.accessKeyID, secretAccessKey: storage.secretAccessKey),
                deniedBuckets: ["secret"])
        }
        defer { Task { await harness.stop() } }

        let rendered = try await harness.get("/insecure/rs:fit:100:100/plain/s3://images/src.png@png")
        #expect(rendered.status == 200, "\(rendered.text)")
        let image = try TestImages.decode(rendered.body)
        #expect(image.width == 100 && image.height == 50)

        let missing = try await harness.get("/insecure/w:10/plain/s3://images/none.png@png")
        #expect(missing.status == 404, "\(missing.text)")

        let denied = try await harness.get("/insecure/w:10/plain/s3://secret/src.png@png")
        #expect(denied.status == 403, "\(denied.text)")
        #expect(storage.requests() == ["GET /images/src.png", "GET /images/none.png"])
        // The endpoint's strong ETag is the source's identity: the bytes are not hashed.
        let fetched = try await harness.service.sources.fetch("s3://images/src.png")
        #expect(fetched.identity.hasPrefix("etag-"), "\(fetched.identity)")
    }

    @Test("Given no --use-s3, then an s3:// source is 403")
    func s3Off() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        let reply = try await harness.get("/insecure/w:10/plain/s3://images/src.png@png")
        #expect(reply.status == 403)
    }
}

@Suite("Service settings: S3")
struct ServiceS3SettingsTests {
    @Test("Given use-s3 and the s3-* settings, then the S3 configuration takes the AWS variables and the settings override endpoint, region and style")
    func settings() throws {
        let environment = [
            "AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "eu-west-1",
            "AWS_ENDPOINT_URL": "http://10.0.0.1:9000", "HOME": "/nonexistent-home",
        ]
        let values: [String: [String]] = [
            "use-s3": ["true"], "s3-endpoint": ["http://127.0.0.1:9000"], "s3-region": ["us-west-2"],
            "s3-endpoint-use-path-style": ["false"], "s3-allowed-bucket": ["a", "b"], "s3-denied-bucket": ["b"],
        ]
        let (configuration, _, _) = try ImageServiceSettings.configuration(from: values, environment: environment)
        let s3 = try #require(configuration.s3)
        #expect(s3.credentials?.accessKeyID == "AKID")
        #expect(s3.endpoint?.absoluteString == "http://127.0.0.1:9000")
        #expect(s3.region == "us-west-2")
        #expect(s3.pathStyle == false)
        #expect(s3.allowedBuckets == ["a", "b"] && s3.deniedBuckets == ["b"])
        let fromEnvironment = try ImageServiceSettings.configuration(from: ["use-s3": ["1"]], environment: environment).0.s3
        #expect(fromEnvironment?.region == "eu-west-1" && fromEnvironment?.endpoint?.absoluteString == "http://10.0.0.1:9000")
        #expect(try ImageServiceSettings.configuration(from: [:], environment: environment).0.s3 == nil)
        #expect(throws: ImageServiceSettings.Problem.self) {
            try ImageServiceSettings.configuration(from: ["use-s3": ["true"], "s3-endpoint": ["ftp://x"]], environment: environment)
        }
        let fromVariables = ImageServiceSettings.values(fromEnvironment: ["WEBIMAGE_USE_S3": "true", "WEBIMAGE_S3_DENIED_BUCKET": "x,y"])
        #expect(fromVariables["use-s3"] == ["true"] && fromVariables["s3-denied-bucket"] == ["x", "y"])
    }
}
