import Foundation
import Testing
@testable import WebImage
import WebImageTesting

/// The S3 servers this machine can run (moto always; Ceph's gateway when installed).
private let backends = S3TestBackend.available(for: "S3LoadingTests")

/// `s3://` loads through the whole pipeline against a real S3 on loopback (Ceph's RADOS Gateway)
/// and moto's S3 server; both check every signature.
@Suite("S3 sources through ImageManager against moto and Ceph RGW (V-12)")
struct S3LoadingTests {
    /// Runs `body` with an endpoint on `backend` holding `images/cats/cat.webp`, and a manager
    /// over a fresh cache whose downloader signs with `secret` (the endpoint's by default) under
    /// `policy`.
    func withS3(
        _ backend: S3TestBackend, secret: String? = nil, policy: AddressPolicy = .permissive,
        _ body: (S3TestEndpoint, ImageManager, ImageCache) async throws -> Void
    ) async throws {
        let server = try await S3TestEndpoint.start(backend, objects: [(bucket: "images", key: "cats/cat.webp", data: try ManagerFixtures.data())])
        defer { server.stop() }
        var configuration = ImageDownloaderConfiguration()
        configuration.downloadTimeout = TestTimeouts.download
        configuration.maximumDownloadDuration = TestTimeouts.request
        configuration.addressPolicy = policy
        configuration.requestModifier = S3RequestSigner(
            S3Configuration(
                endpoint: server.endpoint, region: "us-east-1",
                credentials: AWSCredentials(accessKeyID: server.accessKeyID, secretAccessKey: secret ?? server.secretAccessKey),
                credentialsSource: "the test's credentials"))
        let downloader = ImageDownloader(configuration: configuration)
        let (manager, cache) = ManagerFixtures.manager(loader: downloader)
        do {
            try await body(server, manager, cache)
        } catch {
            try? await downloader.shutdown()
            throw error
        }
        try await downloader.shutdown()
    }

    @Test("Given N concurrent loads of an s3:// URL, then the server sees one signed GET; the next load is a memory hit, then (memory emptied) a disk hit, and refreshCached revalidates", arguments: backends)
    func loadsCoalescedAndCached(backend: S3TestBackend) async throws {
        try await withS3(backend) { server, manager, cache in
            let url = try #require(URL(string: "s3://images/cats/cat.webp"))
            let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<8 {
                    group.addTask { try await manager.loadImage(with: url, options: .waitStoreCache).image?.width ?? 0 }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(sizes == Array(repeating: 24, count: 8))
            #expect(server.requests() == ["GET /images/cats/cat.webp"])
            #expect(cache.diskCache.extendedData(for: url.absoluteString)?.eTag != nil)

            let again = try await manager.loadImage(with: url)
            #expect(again.cacheType == .memory)
            cache.memoryCache.removeAll()
            let fromDisk = try await manager.loadImage(with: url)
            #expect(fromDisk.cacheType == .disk && fromDisk.image?.width == 24)
            #expect(server.requests().count == 1)

            let refreshed = try await manager.loadImage(with: url, options: .refreshCached)
            #expect(refreshed.image?.width == 24)
            #expect(server.requests() == ["GET /images/cats/cat.webp", "GET /images/cats/cat.webp"])
        }
    }

    @Test("Given a missing key, then the load fails with status 404; a wrong secret fails with S3's SignatureDoesNotMatch and what to check", arguments: backends)
    func refusals(backend: S3TestBackend) async throws {
        try await withS3(backend) { server, manager, _ in
            let missing = try #require(URL(string: "s3://images/cats/none.webp"))
            do {
                _ = try await manager.loadImage(with: missing)
                Issue.record("a missing key loaded")
            } catch WebImageError.invalidDownloadStatusCode(let code) {
                #expect(code == 404)
            }
            #expect(server.requests() == ["GET /images/cats/none.webp"])
        }
        try await withS3(backend, secret: "not-the-secret") { server, manager, _ in
            let url = try #require(URL(string: "s3://images/cats/cat.webp"))
            do {
                _ = try await manager.loadImage(with: url)
                Issue.record("a wrong secret loaded the image")
            } catch WebImageError.invalidDownloadResponse(let reason) {
                #expect(reason.hasPrefix("S3 refused the request (403 SignatureDoesNotMatch"), "\(reason)")
                #expect(reason.contains("check the credentials (the test's credentials)"))
            }
            #expect(server.requests() == ["GET /images/cats/cat.webp"])
        }
    }

    @Test("Given a public-internet-only address policy, then s3:// reaches the loopback endpoint, and an http URL naming the endpoint is refused", arguments: backends)
    func endpointBesideAddressPolicy(backend: S3TestBackend) async throws {
        try await withS3(backend, policy: .publicInternetOnly) { server, manager, _ in
            let result = try await manager.loadImage(with: try #require(URL(string: "s3://images/cats/cat.webp")))
            #expect(result.image?.width == 24)
            let direct = server.endpoint.appendingPathComponent("images/cats/cat.webp")
            do {
                _ = try await manager.loadImage(with: direct)
                Issue.record("the address policy let a loopback http URL through")
            } catch WebImageError.addressRefused {
            }
            #expect(server.requests() == ["GET /images/cats/cat.webp"])
        }
    }
}
