import Foundation
import NIOSSL
import Testing
import WebImage
import WebImageCore
import WebImageTesting

/// Runs `body` with a started HTTPS server (self-signed certificate made now) and a downloader.
private func withTLSServerAndDownloader<T>(
    tls: HTTPTestServer.TLS = .selfSigned,
    configuration: (HTTPTestServer) throws -> ImageDownloaderConfiguration = { _ in testDownloaderConfiguration() },
    _ body: (HTTPTestServer, ImageDownloader) async throws -> T
) async throws -> T {
    try await withServerAndDownloader(try HTTPTestServer(tls: tls), configuration: configuration, body)
}

/// The test configuration, failing a rejected handshake at once instead of retrying the
/// connection until the timeout (``ImageDownloaderConfiguration/retriesFailedConnections``).
private func failingFast(_ server: HTTPTestServer) -> ImageDownloaderConfiguration {
    var configuration = testDownloaderConfiguration()
    configuration.retriesFailedConnections = false
    return configuration
}

/// The test configuration with the server's certificate added to the trust roots.
private func trusting(_ server: HTTPTestServer) throws -> ImageDownloaderConfiguration {
    let der = try #require(server.certificate?.derBytes)
    var tls = TLSConfiguration.makeClientConfiguration()
    tls.additionalTrustRoots = [.certificates([try NIOSSLCertificate(bytes: der, format: .der)])]
    var configuration = testDownloaderConfiguration()
    configuration.tlsConfiguration = tls
    return configuration
}

@Suite("Downloader over TLS and HTTP/2 (D-1, D-5)")
struct LoadingTLSTests {
    let image = RawTestCoder.encode(width: 6, height: 5)

    @Test("Given a self-signed server, when the certificate is not trusted, then a tls transport error, no image and no request")
    func untrustedCertificateFails() async throws {
        try await withTLSServerAndDownloader(configuration: failingFast) { server, downloader in
            server.route("/a.raw", .ok(image))
            let result = await loadFinal(downloader, server.url("/a.raw"))
            #expect(result.transportKind == .tls)
            if case .failure(.transport(let error)) = result {
                #expect(error.message.contains("certificate verification failed"))
                #expect(!error.isTransient)
            }
            #expect(server.requestCount("/a.raw") == 0)
        }
    }

    @Test("Given one downloader, then allowInvalidSSLCertificates applies per request: its connection is never reused for a verified request")
    func allowInvalidIsPerRequest() async throws {
        try await withTLSServerAndDownloader(configuration: failingFast) { server, downloader in
            server.route("/a.raw", .ok(image))
            server.route("/b.raw", .ok(image))
            let allowed = await loadFinal(downloader, server.url("/a.raw"), options: .allowInvalidSSLCertificates)
            #expect(allowed.code == "success")
            let verified = await loadFinal(downloader, server.url("/b.raw"))
            #expect(verified.transportKind == .tls)
            #expect(server.requestCount("/b.raw") == 0)
        }
    }

    @Test("Given a self-signed server, when the request allows invalid certificates, then the image loads over HTTP/2")
    func allowInvalidCertificatesLoads() async throws {
        try await withTLSServerAndDownloader { server, downloader in
            server.route("/a.raw", .ok(image))
            let result = await loadFinal(downloader, server.url("/a.raw"), options: .allowInvalidSSLCertificates)
            let loaded = try result.get()
            #expect(loaded.image?.width == 6)
            #expect(loaded.image?.height == 5)
            #expect(loaded.data == image)
            #expect(server.requests(for: "/a.raw").map(\.protocolVersion) == [.http2])
        }
    }

    @Test("Given the server's certificate as an additional trust root, then the image loads without allowing invalid certificates")
    func trustedRootLoads() async throws {
        try await withTLSServerAndDownloader(configuration: trusting) { server, downloader in
            server.route("/a.raw", .ok(image))
            let result = await loadFinal(downloader, server.url("/a.raw"))
            #expect((try? result.get().image?.width) == 6, "\(result)")
            #expect(server.requests(for: "/a.raw").map(\.protocolVersion) == [.http2])
        }
    }

    @Test("Given a trusted certificate that names another host, then a tls error naming the host mismatch and no request; allowing invalid certificates loads")
    func hostNameMismatchFails() async throws {
        let certificate = try SelfSignedCertificate(dnsNames: ["elsewhere.invalid"], includesLoopbackAddress: false)
        let server = HTTPTestServer(tls: .selfSigned, certificate: certificate)
        try await withServerAndDownloader(server, configuration: { server in
            var configuration = try trusting(server)
            configuration.retriesFailedConnections = false
            return configuration
        }) { server, downloader in
            server.route("/a.raw", .ok(image))
            let result = await loadFinal(downloader, server.url("/a.raw"))
            #expect(result.transportKind == .tls)
            if case .failure(.transport(let error)) = result {
                #expect(error.message.contains("does not match the host"))
                #expect(!error.isTransient)
            }
            #expect(server.requestCount("/a.raw") == 0)

            let allowed = await loadFinal(downloader, server.url("/a.raw"), options: .allowInvalidSSLCertificates)
            #expect((try? allowed.get().image?.width) == 6)
            #expect(server.requestCount("/a.raw") == 1)
        }
    }

    @Test(
        "Given ALPN offers, then the request uses HTTP/2 when h2 is offered and HTTP/1.1 when only http/1.1 is",
        arguments: [
            (HTTPTestServer.TLS.selfSigned, HTTPTestServer.ProtocolVersion.http2),
            (HTTPTestServer.TLS.selfSignedHTTP1Only, HTTPTestServer.ProtocolVersion.http1_1),
        ])
    func negotiatedProtocol(tls: HTTPTestServer.TLS, expected: HTTPTestServer.ProtocolVersion) async throws {
        try await withTLSServerAndDownloader(tls: tls, configuration: trusting) { server, downloader in
            server.route("/p.raw", .ok(image))
            server.route("/q.raw", .ok(image))
            let first = await loadFinal(downloader, server.url("/p.raw"))
            let second = await loadFinal(downloader, server.url("/q.raw"))
            #expect(first.code == "success", "\(first)")
            #expect(second.code == "success", "\(second)")
            #expect(server.requests(for: "/p.raw").map(\.protocolVersion) == [expected])
            #expect(server.requests(for: "/q.raw").map(\.protocolVersion) == [expected])
            // Keep-alive or one multiplexed connection: the second request reused the first's.
            #expect(server.connectionCount == 1)
        }
    }

    @Test("Given a 1 MiB body over HTTP/2 (beyond the initial flow-control window), then it arrives whole and decodes")
    func largeBodyOverHTTP2() async throws {
        try await withTLSServerAndDownloader(configuration: trusting) { server, downloader in
            let large = RawTestCoder.encode(width: 512, height: 512, seed: 3)
            server.route("/large.raw", HTTPTestServer.Response.ok(large).with { $0.chunkSize = 16 * 1024 })
            let loaded = try await loadFinal(downloader, server.url("/large.raw")).get()
            #expect(loaded.data == large)
            #expect(loaded.image?.width == 512)
            #expect(server.requests(for: "/large.raw").map(\.protocolVersion) == [.http2])
        }
    }

    @Test("Given 200 concurrent requests for one URL over HTTP/2, then exactly one request reaches the server and every caller gets the image")
    func coalescingOverHTTP2() async throws {
        try await withTLSServerAndDownloader(configuration: trusting) { server, downloader in
            let gate = HTTPTestServer.Gate()
            server.route("/one.raw", HTTPTestServer.Response.ok(image).with { $0.gate = gate })
            let url = server.url("/one.raw")
            let results = Recorder<Result<ImageLoaderResult, WebImageError>>()
            let tokens = (0..<200).map { _ in downloader.downloadImage(with: url) { results.append($0) } }
            #expect(await eventually { gate.waitingCount == 1 })
            gate.open()
            #expect(await eventually { results.count == 200 })
            #expect(server.requestCount("/one.raw") == 1)
            #expect(server.requests(for: "/one.raw").map(\.protocolVersion) == [.http2])
            #expect(results.values.allSatisfy { (try? $0.get().image?.width) == 6 }, "\(Set(results.values.map(\.code)))")
            #expect(tokens.allSatisfy { $0.isFinished })
        }
    }

    @Test("Given 16 distinct URLs requested at once over HTTP/2, then all are in flight together on one TCP connection and all succeed")
    func multiplexedDistinctURLs() async throws {
        let count = 16
        try await withTLSServerAndDownloader(configuration: { server in
            var configuration = try trusting(server)
            configuration.maxConcurrentDownloads = count
            return configuration
        }) { server, downloader in
            // One request first, so the pool knows the host speaks HTTP/2 before the burst
            // (until then AsyncHTTPClient may open HTTP/1-style parallel connections).
            server.route("/warm.raw", .ok(image))
            #expect(await loadFinal(downloader, server.url("/warm.raw")).code == "success")

            let gate = HTTPTestServer.Gate()
            for index in 0..<count {
                server.route("/m\(index).raw", HTTPTestServer.Response.ok(RawTestCoder.encode(width: index + 1, height: 2)).with { $0.gate = gate })
            }
            let results = Recorder<(Int, Result<ImageLoaderResult, WebImageError>)>()
            for index in 0..<count {
                _ = downloader.downloadImage(with: server.url("/m\(index).raw")) { results.append((index, $0)) }
            }
            // Every response is held at the gate at the same time: 16 concurrent streams.
            #expect(await eventually { gate.waitingCount == count })
            #expect(server.maxInFlight == count)
            gate.open()
            #expect(await eventually { results.count == count })
            #expect(results.values.allSatisfy { index, result in (try? result.get().image?.width) == index + 1 })
            #expect((0..<count).allSatisfy { server.requests(for: "/m\($0).raw").map(\.protocolVersion) == [.http2] })
            #expect(server.connectionCount == 1)
        }
    }

    @Test("Given a TCP client that never starts the TLS handshake, then the server still shuts down")
    func shutdownWithPendingHandshake() async throws {
        let server = try HTTPTestServer(tls: .selfSigned)
        try await server.start()
        let socket = try #require(Self.connectedSocket(port: server.port))
        defer { close(socket) }
        #expect(await eventually { server.connectionCount == 1 })
        let finished = Recorder<Bool>()
        let shutdown = Task {
            await server.shutdown()
            finished.append(true)
        }
        #expect(await eventually { finished.count == 1 })
        shutdown.cancel()
    }

    /// A blocking TCP socket connected to 127.0.0.1:`port`, or `nil`.
    private static func connectedSocket(port: Int) -> Int32? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    @Test(
        "Given a body cut short over TLS, then a connectionLost transport error and no image, on HTTP/2 and HTTP/1.1",
        arguments: [HTTPTestServer.TLS.selfSigned, .selfSignedHTTP1Only], [false, true])
    func truncatedBodyOverTLS(tls: HTTPTestServer.TLS, reset: Bool) async throws {
        try await withTLSServerAndDownloader(tls: tls, configuration: trusting) { server, downloader in
            let full = RawTestCoder.encode(width: 32, height: 32)
            server.route("/cut.raw", HTTPTestServer.Response.ok(full.prefix(1_500)).with {
                $0.declaredLength = full.count
                $0.reset = reset
            })
            let results = Recorder<Result<ImageLoaderResult, WebImageError>>()
            _ = downloader.downloadImage(with: server.url("/cut.raw"), options: .progressiveLoad) { results.append($0) }
            #expect(await eventually { results.values.contains { (try? $0.get().finished) != false } })
            let final = try #require(results.values.last)
            #expect(final.transportKind == .connectionLost)
            #expect(!results.values.contains { (try? $0.get().finished) == true })
            // The connection pool recovers.
            server.route("/fine.raw", .ok(full))
            #expect(await loadFinal(downloader, server.url("/fine.raw")).code == "success")
        }
    }
}
