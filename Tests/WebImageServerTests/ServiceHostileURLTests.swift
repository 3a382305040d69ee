import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// Source URLs and redirects a stranger chooses (the hostile-input probe's F1 and the redirect
/// wording): answered with a status and words, the service going on.
@Suite(.timeLimit(.minutes(2))) struct ServiceHostileURLTests {
    @Test("Given a source whose IP-literal host has a port above 65535, then the answer is 400 and the service goes on serving")
    func sourcePortAboveRange() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png"))
        for source in ["http://127.0.0.1:65536/x.jpg", "http://127.0.0.1:99999/x.jpg", "http://[::1]:70000/x.jpg"] {
            let reply = try await harness.get("/insecure/plain/\(source)")
            #expect(reply.status == 400, "\(source): \(reply.status) \(reply.text)")
            #expect(reply.text.contains("outside 1 … 65535"), "\(reply.text)")
        }
        #expect(try await harness.get(harness.plainPath("/src.png")).status == 200)
    }

    @Test("Given an origin that redirects to a port above 65535, then the answer is 502 naming the redirect and the service goes on serving")
    func redirectPortAboveRange() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/hop", .redirect(to: "http://127.0.0.1:99999/x.jpg"))
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png"))
        let reply = try await harness.get(harness.plainPath("/hop"))
        #expect(reply.status == 502, "\(reply.text)")
        #expect(reply.text.contains("redirected to an invalid URL"), "\(reply.text)")
        #expect(try await harness.get(harness.plainPath("/src.png")).status == 200)
    }

    @Test("Given an origin that redirects to itself, then the answer says too many redirects")
    func redirectLoop() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/loop", .redirect(to: harness.origin.url("/loop").absoluteString))
        let reply = try await harness.get(harness.plainPath("/loop"))
        #expect(reply.status == 502, "\(reply.text)")
        #expect(reply.text.contains("too many redirects"), "\(reply.text)")
    }
}
