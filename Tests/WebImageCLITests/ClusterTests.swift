import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The scale-out front (SPEC V-10, issue #15): the nginx configuration in `deploy/nginx/`, and
/// the short run of `make cluster-demo` — three `webimage serve` instances and nginx on
/// loopback, 300 requests, one instance SIGKILLed after request 20 has completed, restarted,
/// and seen serving again.
@Suite(.timeLimit(.minutes(10))) struct ClusterTests {
    /// The directives the issue names, read from the shipped file (comments stripped).
    @Test func nginxConfigurationHasTheScaleOutDirectives() throws {
        let text = try String(contentsOf: ClusterRun.projectRoot.appendingPathComponent("deploy/nginx/nginx.conf"), encoding: .utf8)
        let lines = text.split(separator: "\n").map { line -> String in
            let code = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            return code.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }.filter { !$0.isEmpty }
        func has(_ directive: String) -> Bool { lines.contains(directive) }

        #expect(has("hash $request_uri consistent;"))
        // The cache key: the URI plus the negotiated format bucket, never the raw Accept header.
        #expect(has("proxy_cache_key \"$request_uri|$webimage_format\";"))
        #expect(!lines.contains { $0.hasPrefix("proxy_cache_key") && $0.contains("$http_accept") })
        #expect(has("map $http_accept $webimage_format {"))
        #expect(has("\"~*image/avif\" avif;") && has("\"~*image/webp\" webp;") && has("default other;"))
        let avif = lines.firstIndex(of: "\"~*image/avif\" avif;") ?? 0, webp = lines.firstIndex(of: "\"~*image/webp\" webp;") ?? 0
        #expect(avif < webp, "the first matching regex wins: AVIF must be tried before WebP")
        // What the instance renders matches the key it is stored under.
        #expect(has("proxy_set_header Accept $webimage_accept;"))
        #expect(has("proxy_ignore_headers Vary;"))
        #expect(has("proxy_cache webimage;"))
        #expect(has("proxy_cache_lock on;"))
        let stale = (lines.first { $0.hasPrefix("proxy_cache_use_stale ") } ?? "").dropLast().split(separator: " ")
        for condition in ["error", "timeout", "http_502", "http_503"] {
            #expect(stale.contains(Substring(condition)), "proxy_cache_use_stale \(condition)")
        }
        #expect(has("proxy_next_upstream error timeout http_502 http_503;"))
        // Keep-alive to the upstreams.
        #expect(lines.contains { $0.hasPrefix("keepalive ") && Int($0.dropFirst("keepalive ".count).dropLast()) ?? 0 > 0 })
        #expect(has("proxy_http_version 1.1;"))
        #expect(has("proxy_set_header Connection \"\";"))
    }

    @Test func shortClusterRunFailsOverAndRejoins() async throws {
        guard let nginx = ClusterRun.nginx else {
            Issue.record("nginx is not installed: `make setup` installs it (TEST_PACKAGES in scripts/setup.sh)")
            return
        }
        guard let binary = CLIRunner.binary else {
            Issue.record("the webimage binary was not found next to the test bundle (build with --build-tests)")
            return
        }
        for tool in ["/usr/bin/curl", "/usr/bin/pgrep"] where !FileManager.default.isExecutableFile(atPath: tool) {
            Issue.record("\(tool) is not installed: `make setup` installs it (TEST_PACKAGES in scripts/setup.sh)")
            return
        }
        let result = try await ClusterRun.run(binary: binary, nginx: nginx)
        let context = Comment(rawValue: "stdout:\n\(result.stdout)\nstderr:\n\(result.stderr)")
        #expect(!result.timedOut, context)
        #expect(result.status == 0, context)

        // Exactly one line on standard output, of the documented shape.
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 1 && result.stdout.hasSuffix("\n"), context)
        let pattern = /^cluster: requests=(\d+) errors=(\d+) renders=(\d+) hits=(\d+) p50=(\d+\.\d)ms p99=(\d+\.\d)ms$/
        let match = try #require(try pattern.wholeMatch(in: String(lines.first ?? "")), context)
        let (requests, errors, renders, hits) = (Int(match.1)!, Int(match.2)!, Int(match.3)!, Int(match.4)!)
        #expect(requests == 300, context)
        #expect(errors == 0, "no client saw an error across the SIGKILL: \(context)")
        // 72 URLs × 3 format buckets = 216 cache keys (the four Accept spellings sent collapse into
        // three buckets). Each renders once, give or take the renders the killed instance did
        // after its counter was read (at most 7: no request starts from the read to the kill),
        // and those it was doing when killed (done again elsewhere).
        #expect((200...226).contains(renders), "renders=\(renders): one per URL and format bucket")
        // nginx answers the rest from its cache: 300 − 216 = 84 when every key goes upstream once
        // (keyed on the raw Accept header it would be 300 − 288 = 12).
        #expect((60...100).contains(hits), "hits=\(hits)")
        #expect(Double(match.5)! <= Double(match.6)!)

        // The kill happened on an event, requests failed over, and the restarted one rejoined.
        #expect(result.stderr.contains("SIGKILL sent to instance pid from"), context)
        #expect(result.stderr.contains("after 20 requests had completed"), context)
        let retried = try #require(try /(\d+) requests were retried on another instance by nginx/.firstMatch(in: result.stderr), context)
        #expect(Int(retried.1)! >= 1, "nginx retried the requests the killed instance could not answer: \(context)")
        let rejoined = try #require(try /rejoin: the restarted instance \S+ served (\d+) requests/.firstMatch(in: result.stderr), context)
        #expect(Int(rejoined.1)! >= 1, context)
    }
}
