import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

@Suite(.timeLimit(.minutes(2))) struct ServiceSecurityTests {
    static let key = "736563726574", salt = "68656C6C6F"

    @Test func signedURLsVerifyAndBadOrExpiredAreRefused() async throws {
        let pair = try #require(URLSigner.KeyPair(hexKey: Self.key, hexSalt: Self.salt))
        let oldPair = try #require(URLSigner.KeyPair(hexKey: "6f6c64", hexSalt: "6f6c64"))
        let harness = try await ServiceHarness.start { $0.keyPairs = [pair, oldPair] }
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 32, height: 32), contentType: "image/png"))
        let unsigned = harness.plainPath("/src.png", options: "w:16", ext: "png")
        let signedPath = String(unsigned.dropFirst("/insecure".count))
        let good = URLSigner(keyPairs: [pair]).sign(signedPath)
        #expect(try await harness.get("/\(good)\(signedPath)").status == 200)
        let rotated = URLSigner(keyPairs: [oldPair]).sign(signedPath)
        #expect(try await harness.get("/\(rotated)\(signedPath)").status == 200)
        let before = harness.origin.totalRequestCount
        // Tampered in the first character: the last one of a 32-byte signature carries two
        // padding bits, so A↔B there can decode to the same bytes (a 1-in-16 flake).
        for bad in ["insecure", "unsafe", (good.hasPrefix("A") ? "B" : "A") + String(good.dropFirst())] {
            let reply = try await harness.get("/\(bad)\(signedPath)")
            #expect(reply.status == 403)
            #expect(reply.text == "invalid signature\n")
            #expect(reply.header("Content-Type") == "text/plain; charset=utf-8")
        }
        let expiredPath = harness.plainPath("/src.png", options: "exp:1000", ext: "png").dropFirst("/insecure".count)
        let expired = try await harness.get("/\(URLSigner(keyPairs: [pair]).sign(String(expiredPath)))\(expiredPath)")
        #expect(expired.status == 403 && expired.text == "URL expired\n")
        #expect(harness.origin.totalRequestCount == before, "refused URLs must not reach the origin")
    }

    @Test func truncatedSignaturesWithSignatureSize() async throws {
        let pair = try #require(URLSigner.KeyPair(hexKey: Self.key, hexSalt: Self.salt))
        let harness = try await ServiceHarness.start { $0.keyPairs = [pair]; $0.signatureSize = 8 }
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png"))
        let path = String(harness.plainPath("/src.png").dropFirst("/insecure".count))
        #expect(try await harness.get("/\(URLSigner(keyPairs: [pair], signatureSize: 8).sign(path))\(path)").status == 200)
        #expect(try await harness.get("/\(URLSigner(keyPairs: [pair]).sign(path))\(path)").status == 403)
    }

    @Test func loopbackIsRefusedByDefaultAndTheOriginSeesNothing() async throws {
        let harness = try await ServiceHarness.start(allowLoopback: false)
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png"))
        let reply = try await harness.get(harness.plainPath("/src.png"))
        #expect(reply.status == 403, "\(reply.text)")
        #expect(reply.text.hasPrefix("source not allowed"))
        #expect(harness.origin.totalRequestCount == 0)
    }

    @Test func redirectToARefusedAddressIsRefused() async throws {
        // The service allows one loopback address only; the origin redirects to another.
        let harness = try await ServiceHarness.start(allowLoopback: false) {
            $0.addressPolicy.allowedRanges = [IPAddressRange("127.0.0.1/32")!]
        }
        defer { Task { await harness.stop() } }
        let target = harness.origin.url("/src.png").absoluteString.replacingOccurrences(of: "127.0.0.1", with: "127.0.0.2")
        harness.origin.route("/hop", .redirect(to: target))
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png"))
        #expect(try await harness.get(harness.plainPath("/src.png")).status == 200)
        let reply = try await harness.get(harness.plainPath("/hop"))
        #expect(reply.status == 403, "\(reply.text)")
        #expect(harness.origin.requestCount("/src.png") == 1)
    }

    @Test func allowListOfSourcePrefixes() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/ok/a.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png"))
        harness.origin.route("/no/a.png", .ok(try TestImages.png(width: 8, height: 8), contentType: "image/png"))
        let restricted = try await ServiceHarness.start { $0.allowedSourcePrefixes = [harness.origin.url("/ok/").absoluteString] }
        defer { Task { await restricted.stop() } }
        let allowed = "/insecure/plain/" + harness.origin.url("/ok/a.png").absoluteString
        let refused = "/insecure/plain/" + harness.origin.url("/no/a.png").absoluteString
        #expect(try await restricted.get(allowed).status == 200)
        let reply = try await restricted.get(refused)
        #expect(reply.status == 403 && reply.text.contains("allow-list"))
        #expect(harness.origin.requestCount("/no/a.png") == 0)
    }

    @Test func localSourcesStayUnderTheRoot() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-local-\(UUID().uuidString)")
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-outside-\(UUID().uuidString).png")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root); try? FileManager.default.removeItem(at: outside) }
        try TestImages.png(width: 10, height: 6).write(to: root.appendingPathComponent("in.png"))
        try TestImages.png(width: 10, height: 6).write(to: outside)
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("link.png"), withDestinationURL: outside)
        let harness = try await ServiceHarness.start { $0.localRoot = root }
        defer { Task { await harness.stop() } }
        let inside = try await harness.get("/insecure/w:5/plain/local:///in.png@png")
        #expect(inside.status == 200)
        #expect(try TestImages.decode(inside.body).width == 5)
        for escape in ["local:///../\(outside.lastPathComponent)", "local:///link.png", "local:///%2E%2E/\(outside.lastPathComponent)"] {
            let reply = try await harness.get("/insecure/plain/\(escape)")
            #expect(reply.status == 403, "\(escape): \(reply.status) \(reply.text)")
        }
        #expect(try await harness.get("/insecure/plain/local:///missing.png").status == 404)
        let off = try await ServiceHarness.start()
        defer { Task { await off.stop() } }
        #expect(try await off.get("/insecure/plain/local:///in.png").status == 403)
    }
}
