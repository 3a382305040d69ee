import Foundation
import Testing
import WebImageTesting

/// Several hosts (SPEC V-13): the short run of `make cluster-hosts` — network namespaces joined
/// by veth links to a bridge (a front with nginx, three `webimage serve` hosts, a storage host
/// with an S3 server — moto's, or Ceph's RADOS Gateway — and an HTTP origin), 216 requests
/// through the front (at most 40 a second) with one service host taken away after request 12
/// has completed, then every service host restarted and the rendered URLs replayed. Without root or permission to make namespaces the script says why
/// and the test only prints it.
@Suite(.serialized, .timeLimit(.minutes(10))) struct ClusterHostsTests {
    /// With each S3 server on the storage host (`S3_BACKEND`): moto, and Ceph's RADOS Gateway
    /// when it is installed. One after the other: each run loads both cores.
    @Test(arguments: S3TestBackend.available(for: "ClusterHostsTests"))
    func shortRunLosesAHostWithoutErrorsAndRestartsWithoutRenders(backend: S3TestBackend) async throws {
        guard let nginx = ClusterRun.nginx else {
            Issue.record("nginx is not installed: `make setup` installs it (TEST_PACKAGES in scripts/setup.sh)")
            return
        }
        guard let binary = CLIRunner.binary else {
            Issue.record("the webimage binary was not found next to the test bundle (build with --build-tests)")
            return
        }
        let result = try await ClusterRun.run(
            script: "scripts/cluster-hosts.sh", binary: binary, nginx: nginx,
            environment: [
                "CLUSTER_HOSTS_SHORT": "1", "CLUSTER_HOSTS_REQUESTS": nil, "CLUSTER_HOSTS_RESULT_STORE": nil,
                "CLUSTER_HOSTS_NET": nil, "S3_BACKEND": backend.rawValue,
            ])
        let context = Comment(rawValue: "stdout:\n\(result.stdout)\nstderr:\n\(result.stderr)")
        #expect(!result.timedOut, context)
        if let skipped = try /^cluster-hosts: skipped: (.*)\n$/.wholeMatch(in: result.stdout) {
            print("ClusterHostsTests skipped: \(skipped.1)")
            #expect(result.status == 0, context)
            return
        }
        #expect(result.status == 0, context)

        // Exactly one line on standard output, of the documented shape.
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count == 1 && result.stdout.hasSuffix("\n"), context)
        let pattern = /^cluster-hosts: backend=(\w+) requests=(\d+) errors=(\d+) renders=(\d+) rerenders_after_restart=(\d+) store_hits=(\d+)$/
        let match = try #require(try pattern.wholeMatch(in: String(lines.first ?? "")), context)
        #expect(match.1 == backend.rawValue, context)
        let (requests, errors, renders, rerenders, storeHits) = (Int(match.2)!, Int(match.3)!, Int(match.4)!, Int(match.5)!, Int(match.6)!)
        #expect(errors == 0, "no client saw an error across the loss of a host: \(context)")
        // 4 sources × 3 sizes × 3 format buckets = 36 URLs; all answered, so all 36 are replayed.
        #expect(requests == 216 + 36, context)
        #expect(rerenders == 0, "the restarted hosts answered every replayed URL from the result store: \(context)")
        // Each URL renders once, give or take svc2's: its counters are read just before its
        // kill, and renders it finished in between are not counted — at most 8, the load's
        // concurrency, since no request starts from the event to the kill; renders it had not
        // yet written to the store are lost with it and done again on another host.
        #expect((36 - 8...72).contains(renders), "renders=\(renders): \(context)")
        #expect(storeHits >= 36, "every replayed URL is a result-store hit: \(context)")

        // The host went away on an event, and the cluster came back whole.
        #expect(result.stderr.contains("svc2 taken away after 12 requests"), context)
        #expect(result.stderr.contains("every service host restarted"), context)
    }
}
