import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Testing
import WebImageTesting

/// The S3 servers this machine can run (moto always; Ceph's gateway when installed).
private let backends = S3TestBackend.available(for: "ServeS3ResultStoreCommandTests")

@Suite("webimage serve --result-store s3://… against moto and Ceph RGW (V-12)", .serialized, .timeLimit(.minutes(5)))
struct ServeS3ResultStoreCommandTests {
    @Test("Given two serve processes one after the other with the same s3:// result store and AWS variables, when the second is asked what the first rendered, then it answers the same bytes with 0 renders", arguments: backends)
    func aSecondProcessAnswersFromTheS3Store(backend: S3TestBackend) async throws {
        let server = try await S3TestEndpoint.start(backend, objects: [
            (bucket: "images", key: "src.png", data: try FetchFixtures.png()),
            (bucket: "results", key: "README", data: Data("result store".utf8)),
        ])
        defer { server.stop() }
        let home = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = [
            "AWS_ACCESS_KEY_ID": server.accessKeyID, "AWS_SECRET_ACCESS_KEY": server.secretAccessKey, "AWS_REGION": "us-east-1",
            "HOME": home.path, "AWS_PROFILE": "", "AWS_SESSION_TOKEN": "", "AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_S3": "",
        ]
        // The store needs no --use-s3; the sources here are s3:// too, so it is on.
        let arguments = [
            "--use-s3", "--s3-endpoint", server.endpoint.absoluteString, "--s3-allowed-bucket", "images",
            "--result-store", "s3://results/renders",
        ]
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        defer { Task { try? await client.shutdown() } }
        func get(_ url: String) async throws -> (status: UInt, body: Data) {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 16 * 1024 * 1024)
            return (response.status.code, Data(body.readableBytesView))
        }
        func metric(_ base: String, _ name: String) async throws -> Double? {
            let text = String(decoding: try await get("\(base)/metrics").body, as: UTF8.self)
            return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.dropFirst(name.count + 1)) }
        }
        let path = "/insecure/rs:fit:16:16/plain/s3://images/src.png@png"

        let first = try await ServeProcess.start(arguments, environment: environment)
        let rendered = try await get(first.base + path)
        #expect(rendered.status == 200)
        // The write is queued after the answer: wait for it (the suite's time limit guards it).
        while (try await metric(first.base, "webimage_result_store_writes_total") ?? 0) < 1 {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(try await metric(first.base, "webimage_renders_total") == 1)
        await first.stop()

        let second = try await ServeProcess.start(arguments, environment: environment)
        let served = try await get(second.base + path)
        #expect(served.status == 200 && served.body == rendered.body)
        #expect(try await metric(second.base, "webimage_renders_total") == 0)
        #expect(try await metric(second.base, "webimage_result_store_hits_total") == 1)
        await second.stop()
        #expect(server.requests().filter { $0 == "GET /images/src.png" }.count == 1)
        #expect(server.requests().filter { $0.hasPrefix("PUT /results/renders/") }.count == 1)
    }
}
