import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// An `s3://` result store whose endpoint accepts requests and never answers them (a scripted
/// endpoint holding every answer at a gate): the request is answered anyway.
@Suite(.serialized, .timeLimit(.minutes(3))) struct S3ResultStoreStalledTests {
    @Test("Given an S3 endpoint that holds every answer, when a request comes, then the lookup is given up at the timeout, the answer comes, and the write waits in the background")
    func aStalledEndpointIsSkipped() async throws {
        // The key the request is looked up under, learned from an instance with a memory store.
        let learned = ObservedResultStore(MemoryResultStore())
        let learner = try await ServiceHarness.start { $0.resultStore = learned }
        defer { Task { await learner.stop() } }
        learner.origin.route("/src.png", .ok(try TestImages.png(width: 40, height: 30), contentType: "image/png"))
        let path = learner.plainPath("/src.png", options: "w:20", ext: "png")
        #expect(try await learner.get(path).status == 200)
        let key = try #require(learned.lookedUp.last)

        let endpoint = HTTPTestServer()
        try await endpoint.start()
        let gate = HTTPTestServer.Gate()
        let objectPath = "/results/stalled/\(key.name)"
        endpoint.route(objectPath, HTTPTestServer.Response.status(200).with { $0.gate = gate })
        let s3 = S3Configuration(
            endpoint: endpoint.url(""), credentials: AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret"))
        let harness = try await ServiceHarness.start {
            $0.resultStore = S3ResultStore(bucket: "results", prefix: "stalled", configuration: s3)
            $0.resultStoreTimeout = 0.2
        }
        defer { Task { await harness.stop() } }
        // The same source URL: the learner's origin still serves it.
        let reply = try await harness.get(path)
        #expect(reply.status == 200 && reply.header("Content-Type") == "image/png")
        #expect(try TestImages.decode(reply.body).width == 20)
        #expect(try await harness.metric("webimage_result_store_errors_total") == 1, "the lookup timed out")
        #expect(try await harness.metric("webimage_renders_total") == 1)
        // The write reaches the endpoint and waits at the gate; opened, it completes.
        while !endpoint.requests(for: objectPath).contains(where: { $0.method == "PUT" }) {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(try await harness.metric("webimage_result_store_writes_total") == 0)
        gate.open()
        try await harness.waitForMetric("webimage_result_store_writes_total", atLeast: 1)
        await endpoint.shutdown()
    }
}
