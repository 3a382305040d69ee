import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// The S3 servers this machine can run (storage always; Ceph's gateway when installed).
private let backends = S3TestBackend.available(for: "S3ResultStoreTests")

/// `--result-store s3://bucket/prefix` against Ceph's RADOS Gateway and moto on loopback (SPEC V-12, V-13):
/// instances sharing the prefix answer each other's renders, entries round-trip whole, and a
/// store that cannot be reached costs a warning and a metric, never a request.
@Suite(.serialized, .timeLimit(.minutes(5))) struct S3ResultStoreTests {
    /// The settings of an instance with `s3://results/renders/v1` as its result store and the endpoint's
    /// `images` bucket as its `s3://` sources, made as `webimage serve` makes them.
    static func settings(_ storage: S3TestEndpoint, extra: [String: [String]] = [:]) throws -> ImageServiceConfiguration {
        let environment = [
            "AWS_ACCESS_KEY_ID": storage.accessKeyID, "AWS_SECRET_ACCESS_KEY": storage.secretAccessKey, "HOME": "/nonexistent-home",
        ]
        let values: [String: [String]] = [
            "use-s3": ["true"], "s3-endpoint": [storage.endpoint.absoluteString], "s3-allowed-bucket": ["images"],
            "result-store": ["s3://results/renders/v1/"],
        ].merging(extra) { _, new in new }
        return try ImageServiceSettings.configuration(from: values, environment: environment).0
    }

    /// Applies the settings' S3 parts to a harness's configuration.
    static func apply(_ settings: ImageServiceConfiguration, to configuration: inout ImageServiceConfiguration, observed: ObservedResultStore? = nil) {
        configuration.s3 = settings.s3
        configuration.resultStore = observed ?? settings.resultStore
        configuration.resultStoreTimeout = settings.resultStoreTimeout
        configuration.keyPairs = settings.keyPairs
    }

    @Test("Given two instances sharing an s3:// result store, when the second is asked what the first rendered, then it answers with 0 renders and no source fetch, and the object key is the canonical request's, not the signature", arguments: backends)
    func twoInstancesShareAnS3Store(backend: S3TestBackend) async throws {
        let storage = try await S3TestEndpoint.start(backend, objects: [
            (bucket: "images", key: "cats/src.png", data: try TestImages.png(width: 400, height: 200)),
            (bucket: "results", key: "README", data: Data("result store".utf8)),
        ])
        defer { storage.stop() }
        let settings = try Self.settings(storage, extra: ["key": ["6b6579"], "salt": ["73616c74"]])
        let store = try #require(settings.resultStore as? S3ResultStore)
        #expect(store.bucket == "results" && store.prefix == "renders/v1")
        #expect(settings.s3?.allowedBuckets == ["images"], "the source bucket rules do not name the store's bucket")
        let firstStore = ObservedResultStore(store)
        let first = try await ServiceHarness.start(allowLoopback: false) { Self.apply(settings, to: &$0, observed: firstStore) }
        defer { Task { await first.stop() } }
        let unsigned = "/rs:fit:100:100/plain/s3://images/cats/src.png@webp"
        let signature = URLSigner(keyPairs: settings.keyPairs).sign(unsigned)
        let path = "/" + signature + unsigned
        let rendered = try await first.get(path)
        #expect(rendered.status == 200 && rendered.header("Content-Type") == "image/webp", "\(rendered.text)")
        let key = try #require(await firstStore.nextWrite())
        #expect(try await first.metric("webimage_renders_total") == 1)
        #expect(try await first.metric("webimage_result_store_misses_total") == 1)
        let put = storage.requests().filter { $0.hasPrefix("PUT ") }
        #expect(put == ["PUT /results/renders/v1/\(key.name)"])
        #expect(put.allSatisfy { !$0.contains(signature) })

        let secondSettings = try Self.settings(storage, extra: ["key": ["6b6579"], "salt": ["73616c74"]])
        let second = try await ServiceHarness.start(allowLoopback: false) { Self.apply(secondSettings, to: &$0) }
        defer { Task { await second.stop() } }
        let served = try await second.get(path)
        #expect(served.status == 200, "\(served.text)")
        #expect(served.body == rendered.body)
        #expect(served.header("ETag") == rendered.header("ETag"))
        #expect(served.header("Content-Type") == "image/webp")
        #expect(served.header("Cache-Control") == rendered.header("Cache-Control"))
        #expect(served.header("Last-Modified") == rendered.header("Last-Modified"))
        #expect(try await second.metric("webimage_renders_total") == 0)
        #expect(try await second.metric("webimage_result_store_hits_total") == 1)
        #expect(second.service.decodeCount == 0)
        #expect(storage.requests().filter { $0 == "GET /images/cats/src.png" }.count == 1, "the second instance must not fetch the source")
    }

    @Test("Given an s3:// result store where one object was copied over another, when the other is asked for, then it is rendered anew, with a key-mismatch metric", arguments: backends)
    func aMisplacedObjectIsAMiss(backend: S3TestBackend) async throws {
        let moto = try await S3TestEndpoint.start(backend, objects: [
            (bucket: "images", key: "cats/src.png", data: try TestImages.png(width: 400, height: 200)),
            (bucket: "results", key: "README", data: Data("result store".utf8)),
        ])
        defer { moto.stop() }
        let settings = try Self.settings(moto)
        let store = try #require(settings.resultStore as? S3ResultStore)
        let firstStore = ObservedResultStore(store)
        let first = try await ServiceHarness.start(allowLoopback: false) { Self.apply(settings, to: &$0, observed: firstStore) }
        defer { Task { await first.stop() } }
        let small = "/insecure/rs:fit:50:50/plain/s3://images/cats/src.png@png"
        let large = "/insecure/rs:fit:100:100/plain/s3://images/cats/src.png@png"
        let smallReply = try await first.get(small)
        let smallKey = try #require(await firstStore.nextWrite())
        let largeReply = try await first.get(large)
        let largeKey = try #require(await firstStore.nextWrite())
        #expect(smallReply.status == 200 && largeReply.status == 200 && smallReply.body != largeReply.body)
        guard case let .object(copied) = try await store.client.read(store.location(for: smallKey), maxBytes: 1 << 20) else {
            Issue.record("the small render's object is missing")
            return
        }
        try await store.client.write(copied, to: store.location(for: largeKey))

        let second = try await ServiceHarness.start(allowLoopback: false) { Self.apply(settings, to: &$0) }
        defer { Task { await second.stop() } }
        let served = try await second.get(large)
        #expect(served.status == 200)
        #expect(served.body == largeReply.body, "the object of another key must not answer")
        #expect(try await second.metric("webimage_renders_total") == 1)
        #expect(try await second.metric("webimage_result_store_key_mismatches_total") == 1)
        #expect(try await second.metric("webimage_result_store_hits_total") == 0)
    }

    @Test("Given an s3:// result store, when an entry is written and read back, then its metadata round-trips; a missing key is a miss, an oversized or corrupt object reads as none", arguments: backends)
    func entriesRoundTrip(backend: S3TestBackend) async throws {
        let storage = try await S3TestEndpoint.start(backend, objects: [(bucket: "results", key: "README", data: Data("result store".utf8))])
        defer { storage.stop() }
        let settings = try Self.settings(storage)
        let store = try #require(settings.resultStore as? S3ResultStore)
        let key = ResultStoreKey(canonicalRequest: "round trip")
        let entry = StoredResult(
            key: key, body: Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 31) }), contentType: "image/avif", etag: "\"abc-123\"",
            lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", expiresAt: Date(timeIntervalSince1970: 1_900_000_123.5))
        #expect(try await store.entry(for: key) == nil)
        try await store.store(entry, for: key)
        #expect(try await store.entry(for: key) == entry)
        let small = S3ResultStore(bucket: "results", prefix: "renders/v1", configuration: try #require(settings.s3), maxEntryBytes: 100)
        #expect(try await small.entry(for: key) == nil, "an entry over the bound reads as none")
        try await small.store(entry, for: ResultStoreKey(canonicalRequest: "too large"))
        #expect(try await store.entry(for: ResultStoreKey(canonicalRequest: "too large")) == nil, "an entry over the bound is not written")
        try await store.client.write(Data("not an entry".utf8), to: store.location(for: key))
        #expect(try await store.entry(for: key) == nil, "a corrupt object reads as none")
        #expect(storage.requests().contains("PUT /results/renders/v1/\(key.name)"))
    }

    @Test("Given an s3:// result store that refuses or does not exist, then lookups and writes fail with plain errors", arguments: backends)
    func refusalsAreErrors(backend: S3TestBackend) async throws {
        let storage = try await S3TestEndpoint.start(backend, objects: [(bucket: "results", key: "README", data: Data("result store".utf8))])
        defer { storage.stop() }
        let s3 = try #require(try Self.settings(storage).s3)
        let key = ResultStoreKey(canonicalRequest: "refused")
        let noBucket = S3ResultStore(bucket: "no-such-bucket", prefix: "x", configuration: s3)
        await #expect {
            _ = try await noBucket.entry(for: key)
        } throws: { error in
            "\(error)".contains("does not exist")
        }
        var wrongSecret = s3
        wrongSecret.credentials?.secretAccessKey = "wrong"
        let refused = S3ResultStore(bucket: "results", prefix: "x", configuration: wrongSecret)
        await #expect {
            try await refused.store(StoredResult(key: key, body: Data([1]), contentType: "image/png", etag: "\"e\"", lastModified: nil, expiresAt: .distantFuture), for: key)
        } throws: { error in
            "\(error)".contains("S3 refused the request")
        }
    }

    @Test("Given an s3:// result store whose server stopped, when a request comes, then it is answered, and the store's failures are counted", arguments: backends)
    func aStoppedStoreOnlyCostsAMetric(backend: S3TestBackend) async throws {
        let storage = try await S3TestEndpoint.start(backend, objects: [(bucket: "results", key: "README", data: Data("result store".utf8))])
        let settings = try Self.settings(storage)
        storage.stop()
        let store = try #require(settings.resultStore as? S3ResultStore)
        await #expect {
            _ = try await store.entry(for: ResultStoreKey(canonicalRequest: "unreachable"))
        } throws: { error in
            error is S3ResultStoreError && "\(error)".contains("s3://results/renders/v1 at \(storage.endpoint.absoluteString)")
        }
        let harness = try await ServiceHarness.start { Self.apply(settings, to: &$0) }
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 40, height: 30), contentType: "image/png"))
        let reply = try await harness.get(harness.plainPath("/src.png", options: "w:20", ext: "png"))
        #expect(reply.status == 200 && reply.header("Content-Type") == "image/png")
        #expect(try TestImages.decode(reply.body).width == 20)
        // The lookup failed, then the queued write did.
        try await harness.waitForMetric("webimage_result_store_errors_total", atLeast: 2)
        #expect(try await harness.metric("webimage_renders_total") == 1)
        #expect(try await harness.metric("webimage_result_store_writes_total") == 0)
    }
}
