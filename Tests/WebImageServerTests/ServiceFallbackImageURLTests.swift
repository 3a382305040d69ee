import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// `fallback_image_url` (`fiu`) over loopback HTTP: the image answered when the source cannot
/// be had, fetched under the source policy.
@Suite(.timeLimit(.minutes(3))) struct ServiceFallbackImageURLTests {
    private func encoded(_ url: URL) -> String { Base64URL.encode(Array(url.absoluteString.utf8)) }

    @Test("Given a missing source and fiu, then the fallback image is processed and answered with the fallback status")
    func answersTheFallback() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/missing.png", .status(404))
        harness.origin.route("/fallback.png", .ok(try TestImages.png(width: 40, height: 20), contentType: "image/png"))
        let fiu = encoded(harness.origin.url("/fallback.png"))
        let reply = try await harness.get(harness.plainPath("/missing.png", options: "w:10/fiu:\(fiu)", ext: "png"))
        #expect(reply.status == 200, "\(reply.text)")
        #expect(try TestImages.decode(reply.body).pixelSize == PixelSize(width: 10, height: 5), "the fallback, resized")
        let plain = try await harness.get(harness.plainPath("/missing.png", options: "w:10", ext: "png"))
        #expect(plain.status == 404, "without fiu (and no configured fallback): \(plain.text)")
        let long = try await harness.get(harness.plainPath("/missing.png", options: "w:10/fallback_image_url:\(fiu)", ext: "png"))
        #expect(long.status == 200)
    }

    @Test("Given fiu outside the source allow-list or unreachable, then it is not fetched and the source's error stands")
    func underTheSourcePolicy() async throws {
        // `origins` serves the files; `restricted` allows only its `/src/` prefix.
        let origins = try await ServiceHarness.start()
        defer { Task { await origins.stop() } }
        let allowed = origins.origin.url("/src/").absoluteString
        let restricted = try await ServiceHarness.start { $0.allowedSourcePrefixes = [allowed] }
        defer { Task { await restricted.stop() } }
        origins.origin.route("/src/missing.png", .status(404))
        origins.origin.route("/src/gone.png", .status(404))
        origins.origin.route("/other/fallback.png", .ok(try TestImages.png(width: 40, height: 20), contentType: "image/png"))
        func path(_ options: String) -> String {
            "/insecure/\(options)/plain/" + origins.origin.url("/src/missing.png").absoluteString + "@png"
        }
        let outside = encoded(origins.origin.url("/other/fallback.png"))
        let reply = try await restricted.get(path("fiu:\(outside)"))
        #expect(reply.status == 404, "\(reply.text)")
        #expect(origins.origin.requestCount("/other/fallback.png") == 0, "a fallback outside the allow-list is never fetched")
        let unreachable = try await restricted.get(path("fiu:\(encoded(origins.origin.url("/src/gone.png")))"))
        #expect(unreachable.status == 404, "\(unreachable.text)")
        #expect(origins.origin.requestCount("/src/gone.png") == 1, "a fallback inside the allow-list is fetched")
    }

    @Test("Given hostile fiu values, then 400 names the option")
    func hostileValues() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 4, height: 4), contentType: "image/png"))
        for options in ["fiu:", "fiu:!!!", "fiu:a:b", "fallback_image_url:" + Base64URL.encode([0xff, 0xfe])] {
            let reply = try await harness.get(harness.plainPath("/src.png", options: options, ext: "png"))
            let name = String(options.prefix { $0 != ":" })
            #expect(reply.status == 400 && reply.text.contains(name), "\(options) → \(reply.status) \(reply.text)")
        }
    }
}
