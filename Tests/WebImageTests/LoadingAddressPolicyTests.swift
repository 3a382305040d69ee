import Foundation
import NIOSSL
import Testing
import WebImage
import WebImageCore
import WebImageTesting

/// `.publicInternetOnly`, plus holes for `allowing` (CIDR text).
private func publicOnly(allowing ranges: [String] = []) -> ImageDownloaderConfiguration {
    var configuration = testDownloaderConfiguration()
    configuration.addressPolicy = .publicInternetOnly
    configuration.addressPolicy.allowedRanges = ranges.compactMap(IPAddressRange.init)
    return configuration
}

/// `publicOnly(allowing: 127.0.0.1/32)` trusting `server`'s certificate.
private func publicOnlyTrusting(_ server: HTTPTestServer) throws -> ImageDownloaderConfiguration {
    let der = try #require(server.certificate?.derBytes)
    var tls = TLSConfiguration.makeClientConfiguration()
    tls.additionalTrustRoots = [.certificates([try NIOSSLCertificate(bytes: der, format: .der)])]
    var configuration = publicOnly(allowing: ["127.0.0.1/32"])
    configuration.tlsConfiguration = tls
    return configuration
}

/// The parts of an `addressRefused` failure, or `nil` for any other result.
private func refusal(_ result: Result<ImageLoaderResult, WebImageError>) -> (host: String, address: String, reason: String)? {
    if case .failure(.addressRefused(let host, let address, let reason)) = result { return (host, address, reason) }
    return nil
}

/// End to end through the egress proxy, on loopback only: the only addresses a test may let the
/// client reach are in 127.0.0.0/8; every other address appears only to be refused.
@Suite("Downloader address policy through the egress proxy (R-1)")
struct LoadingAddressPolicyTests {
    let image = RawTestCoder.encode(width: 4, height: 3)

    @Test("Given .publicInternetOnly, when the URL is a loopback address, then addressRefused names the class and the server sees no connection")
    func loopbackLiteralRefused() async throws {
        try await withServerAndDownloader(configuration: publicOnly()) { server, downloader in
            server.route("/a.raw", .ok(image))
            let result = await loadFinal(downloader, server.url("/a.raw"), context: rawContext())
            let refused = try #require(refusal(result), "\(result)")
            #expect(refused.address == "127.0.0.1")
            #expect(refused.reason == "loopback address")
            #expect(server.connectionCount == 0)
            #expect(server.requestCount("/a.raw") == 0)
        }
    }

    @Test("Given .publicInternetOnly, when the host is `localhost`, then it is refused like 127.0.0.1, after resolving")
    func localhostRefused() async throws {
        try await withServerAndDownloader(configuration: publicOnly()) { server, downloader in
            server.route("/a.raw", .ok(image))
            let url = try #require(URL(string: "http://localhost:\(server.port)/a.raw"))
            let result = await loadFinal(downloader, url, context: rawContext())
            let refused = try #require(refusal(result), "\(result)")
            #expect(refused.host == "localhost")
            #expect(refused.address == "127.0.0.1" || refused.address == "::1")
            #expect(refused.reason == "loopback address")
            #expect(server.connectionCount == 0)
        }
    }

    @Test("Given an allow rule for 127.0.0.1/32, when A redirects to B on 127.0.0.2, then the load is refused at B's address and B never sees a connection")
    func redirectToOtherLoopbackRefused() async throws {
        let serverB = AcceptCountingListener(host: "127.0.0.2")
        try await serverB.start()
        defer { Task { await serverB.shutdown() } }
        try await withServerAndDownloader(configuration: publicOnly(allowing: ["127.0.0.1/32"])) { server, downloader in
            server.route("/ok.raw", .ok(image))
            server.route("/hop", .redirect(to: "http://127.0.0.2:\(serverB.port)/b.raw"))
            // The hole works: A itself is reached through the proxy.
            #expect(try await loadFinal(downloader, server.url("/ok.raw"), context: rawContext()).get().image?.width == 4)
            let result = await loadFinal(downloader, server.url("/hop"), context: rawContext())
            let refused = try #require(refusal(result), "\(result)")
            #expect(refused.host == "127.0.0.2" && refused.address == "127.0.0.2")
            #expect(refused.reason == "loopback address")
            #expect(server.requestCount("/hop") == 1)
            #expect(serverB.acceptedCount == 0)
        }
    }

    @Test("Given an allow rule for 127.0.0.1/32, when A redirects to the cloud metadata address, then link-local is refused without a connection attempt")
    func redirectToMetadataRefused() async throws {
        try await withServerAndDownloader(configuration: publicOnly(allowing: ["127.0.0.1/32"])) { server, downloader in
            server.route("/hop", .redirect(to: "http://169.254.169.254/latest/meta-data/"))
            let result = await loadFinal(downloader, server.url("/hop"), context: rawContext())
            let refused = try #require(refusal(result), "\(result)")
            #expect(refused.address == "169.254.169.254")
            #expect(refused.reason == "link-local address")
            #expect(result.failureDescription.contains("169.254.169.254"))
        }
    }

    @Test("Given a denied range covering an allowed one, then the denied range wins; given an allowed-hosts list, then other hosts are refused by name")
    func deniedRangeAndAllowedHosts() async throws {
        var configuration = publicOnly(allowing: ["127.0.0.0/8"])
        configuration.addressPolicy.deniedRanges = [try #require(IPAddressRange("127.0.0.1/32"))]
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            server.route("/a.raw", .ok(image))
            let refused = try #require(refusal(await loadFinal(downloader, server.url("/a.raw"), context: rawContext())))
            #expect(refused.reason == "address in the denied range 127.0.0.1/32")
            #expect(server.connectionCount == 0)
        }
        var hosts = publicOnly(allowing: ["127.0.0.1/32"])
        hosts.addressPolicy.allowedHosts = ["images.example.com"]
        try await withServerAndDownloader(configuration: hosts) { server, downloader in
            server.route("/a.raw", .ok(image))
            let refused = try #require(refusal(await loadFinal(downloader, server.url("/a.raw"), context: rawContext())))
            #expect(refused.reason == "host not on the allowed-hosts list")
            #expect(refused.address.isEmpty)
            #expect(server.connectionCount == 0)
        }
    }

    @Test("Given HTTPS through the proxy, then the tunnel is opaque: a trusted certificate loads (HTTP/2 by ALPN), an untrusted one fails verification")
    func httpsThroughTheProxy() async throws {
        let trusted = try HTTPTestServer(tls: .selfSigned)
        try await withServerAndDownloader(trusted, configuration: publicOnlyTrusting) { server, downloader in
            server.route("/a.raw", .ok(image))
            let result = await loadFinal(downloader, server.url("/a.raw"), context: rawContext())
            let loaded = try result.get()
            #expect(loaded.image?.width == 4)
            #expect(server.requests(for: "/a.raw").first?.protocolVersion == .http2)
        }
        let untrusted = try HTTPTestServer(tls: .selfSigned)
        try await withServerAndDownloader(untrusted, configuration: { _ in publicOnly(allowing: ["127.0.0.1/32"]) }) { server, downloader in
            server.route("/a.raw", .ok(image))
            let result = await loadFinal(downloader, server.url("/a.raw"), context: rawContext())
            #expect(result.transportKind == .tls, "\(result)")
            #expect(server.requestCount("/a.raw") == 0)
        }
    }

    @Test(
        "Given any policy, when a server redirects to a scheme other than http or https, then unsupportedURL names it",
        arguments: ["ftp://127.0.0.1/x.png", "file:///etc/passwd", "gopher://127.0.0.1/1", "javascript:alert(1)"])
    func redirectToOtherSchemeRefused(location: String) async throws {
        for configuration in [testDownloaderConfiguration(), publicOnly(allowing: ["127.0.0.1/32"])] {
            try await withServerAndDownloader(configuration: configuration) { server, downloader in
                server.route("/hop", .redirect(to: location))
                let result = await loadFinal(downloader, server.url("/hop"), context: rawContext())
                let scheme = String(location.prefix { $0 != ":" })
                guard case .failure(.unsupportedURL(let named)) = result else {
                    Issue.record("expected unsupportedURL, got \(result)")
                    return
                }
                #expect(named == scheme)
            }
        }
    }

    @Test("Given a downloader asked directly for an ftp: URL, then unsupportedURL and no request")
    func unsupportedSchemeDirect() async throws {
        try await withServerAndDownloader { _, downloader in
            let url = try #require(URL(string: "ftp://127.0.0.1/x.png"))
            let result = await loadFinal(downloader, url)
            guard case .failure(.unsupportedURL(let scheme)) = result else {
                Issue.record("expected unsupportedURL, got \(result)")
                return
            }
            #expect(scheme == "ftp")
        }
    }
}

extension Result where Failure == WebImageError {
    /// The failure's text, or "" for a success.
    var failureDescription: String {
        if case .failure(let error) = self { return error.description }
        return ""
    }
}
