import AsyncHTTPClient
import Foundation
import Testing
@testable import WebImage
import WebImageTesting

/// URLs the HTTP client must never see: ports it would trap on or silently replace, hosts it
/// cannot connect to (issue F1 of the hostile-input probe: one such URL ended the process).
@Suite("Downloader: URLs checked before the HTTP client (R-1, R-3)")
struct LoadingHostileURLTests {
    @Test(
        "Given URLs with unusable ports, schemes or hosts, then RequestURLCheck names the problem",
        arguments: [
            "http://127.0.0.1:65536/x.jpg", "http://127.0.0.1:99999/x.jpg", "http://[::1]:70000/x.jpg",
            "http://127.0.0.1:99999999999999999999999/x.jpg", "http://example.com:0/x.jpg",
            "http://user@127.0.0.1:100000/x.jpg", "ftp://example.com/x.jpg", "http:///x.jpg",
            // Found by the source-url fuzz target: the HTTP client trapped on these hosts.
            "http://%5d", "http://%5b%5d/x.jpg", "http://a%5d/x.jpg",
        ])
    func refused(_ text: String) throws {
        let url = try #require(URL(string: text))
        #expect(RequestURLCheck.problem(with: url) != nil, "\(text)")
    }

    @Test(
        "Given ordinary URLs, then RequestURLCheck accepts them",
        arguments: [
            "http://127.0.0.1/x.jpg", "https://example.com:443/x.jpg", "http://127.0.0.1:65535/x.jpg",
            "http://[::1]:8080/x.jpg", "http://127.0.0.1:/x.jpg", "http://127.0.0.1:0080/x.jpg",
            "http://user:pa:ss@example.com/x.jpg", "http://example.com/a:b/c?d=e:99999#f:1",
        ])
    func accepted(_ text: String) throws {
        let url = try #require(URL(string: text))
        #expect(RequestURLCheck.problem(with: url) == nil, "\(text)")
        // What the check accepts, the HTTP client builds a request for (no connection is made).
        _ = try HTTPClient.Request(url: url.absoluteString)
    }

    @Test("Given a URL whose port is above 65535, when it is downloaded, then it fails with invalidURL and nothing is sent")
    func portAboveRange() async throws {
        try await withServerAndDownloader { server, downloader in
            for text in ["http://127.0.0.1:65536/x.jpg", "http://127.0.0.1:99999999999999999999999/x.jpg"] {
                let result = await loadFinal(downloader, try #require(URL(string: text)))
                guard case .failure(.invalidURL(let message)) = result else {
                    Issue.record("expected invalidURL for \(text), got \(result)")
                    continue
                }
                #expect(message?.contains("outside 1 … 65535") == true)
            }
            #expect(server.totalRequestCount == 0)
        }
    }

    @Test("Given a request modifier that moves the URL to port 70000, then the download fails with invalidURL")
    func modifierPortAboveRange() async throws {
        try await withServerAndDownloader { server, downloader in
            var context = WebImageContext()
            context.requestModifier = { request in
                ImageDownloadRequest(url: URL(string: "http://127.0.0.1:70000/x")!, headers: request.headers)
            }
            let result = await loadFinal(downloader, server.url("/x"), context: context)
            guard case .failure(.invalidURL) = result else {
                Issue.record("expected invalidURL, got \(result)")
                return
            }
            #expect(server.totalRequestCount == 0)
        }
    }

    @Test(
        "Given an origin that redirects to an IP literal with a port above 65535, then the download fails with invalidDownloadResponse and the process lives",
        arguments: [302, 301, 307, 304])
    func redirectToPortAboveRange(status: Int) async throws {
        try await withServerAndDownloader { server, downloader in
            server.route("/hop", .redirect(to: "http://127.0.0.1:99999/x.jpg", status: status))
            server.route("/ok", .ok(RawTestCoder.encode(width: 2, height: 2)))
            let result = await loadFinal(downloader, server.url("/hop"))
            guard case .failure(.invalidDownloadResponse(let reason)) = result else {
                Issue.record("expected invalidDownloadResponse, got \(result)")
                return
            }
            #expect(reason.contains("redirected to an invalid URL"))
            // The downloader goes on serving.
            #expect(await loadFinal(downloader, server.url("/ok")).code == "success")
        }
    }
}
