import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// `/info`'s `perceptual_hash`, `average` and `palette` over loopback HTTP, in imgproxy's
/// response shapes.
@Suite(.timeLimit(.minutes(3))) struct ServiceInfoExtrasTests {
    struct Color: Decodable, Equatable {
        var R: Int, G: Int, B: Int, A: Int
    }

    struct Extras: Decodable {
        var perceptual_hash: String?
        var average: Color?
        var palette: [Color]?
    }

    /// A `width`×`height` PNG whose left `split` columns are `left` and the rest `right`.
    static func halves(_ left: RGBA, _ right: RGBA, width: Int = 40, height: Int = 20, split: Int = 10) throws -> Data {
        let pixels = PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let color = x < split ? left : right, i = (y * width + x) * 4
                    out[i] = color.r; out[i + 1] = color.g; out[i + 2] = color.b; out[i + 3] = color.a
                }
            }
        }
        return try CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: left.a != 255 || right.a != 255), format: .png, options: EncodeOptions())
    }

    /// A `width`×`height` PNG of a 4×4 grid of blocks, each its own shade.
    static func blocks(width: Int, height: Int) throws -> Data {
        let pixels = PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let block = (y * 4 / height) * 4 + x * 4 / width, i = (y * width + x) * 4
                    let shade = UInt8((block * 7 % 16) * 16)
                    out[i] = shade; out[i + 1] = 255 - shade; out[i + 2] = UInt8(block * 16); out[i + 3] = 255
                }
            }
        }
        return try CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: false), format: .png, options: EncodeOptions())
    }

    private func info(_ harness: ServiceHarness, _ path: String, _ options: String) async throws -> (Int, Extras?, String) {
        let reply = try await harness.get("/info" + harness.plainPath(path, options: options))
        guard reply.status == 200 else { return (reply.status, nil, reply.text) }
        return (reply.status, try JSONDecoder().decode(Extras.self, from: reply.body), reply.text)
    }

    @Test("Given average, then the mean colour in imgproxy's {R,G,B,A} shape; fully transparent pixels are left out by default")
    func average() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/halves.png", .ok(try Self.halves(RGBA(r: 200, g: 0, b: 0), RGBA(r: 0, g: 0, b: 100)), contentType: "image/png"))
        harness.origin.route("/clear.png", .ok(
            try Self.halves(RGBA(r: 0, g: 0, b: 0, a: 0), RGBA(r: 0, g: 120, b: 0), split: 20), contentType: "image/png"))
        let (status, extras, text) = try await info(harness, "/halves.png", "avg:1")
        #expect(status == 200, "\(text)")
        // A quarter red (200, 0, 0), three quarters blue (0, 0, 100).
        #expect(extras?.average == Color(R: 50, G: 0, B: 75, A: 255), "\(text)")
        #expect(extras?.perceptual_hash == nil && extras?.palette == nil, "only what is asked for: \(text)")
        let ignoring = try await info(harness, "/clear.png", "average:1")
        #expect(ignoring.1?.average == Color(R: 0, G: 120, B: 0, A: 255), "\(ignoring.2)")
        let counting = try await info(harness, "/clear.png", "average:1:0")
        #expect(counting.1?.average == Color(R: 0, G: 60, B: 0, A: 128), "\(counting.2)")
        let off = try await info(harness, "/halves.png", "avg:0")
        #expect(off.1?.average == nil)
    }

    @Test("Given palette, then at most that many colours, the most common first, in imgproxy's shape")
    func palette() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/halves.png", .ok(try Self.halves(RGBA(r: 200, g: 0, b: 0), RGBA(r: 0, g: 0, b: 100)), contentType: "image/png"))
        let two = try await info(harness, "/halves.png", "p:2")
        #expect(two.1?.palette == [Color(R: 0, G: 0, B: 100, A: 255), Color(R: 200, G: 0, B: 0, A: 255)], "\(two.2)")
        let many = try await info(harness, "/halves.png", "palette:16")
        #expect(many.1?.palette?.count == 2, "two colours are all there is: \(many.2)")
        let gradient = try TestImages.png(width: 64, height: 64)
        harness.origin.route("/gradient.png", .ok(gradient, contentType: "image/png"))
        let eight = try await info(harness, "/gradient.png", "p:8")
        #expect(eight.1?.palette?.count == 8, "\(eight.2)")
    }

    @Test("Given perceptual_hash, then 16 hex digits, near for the same picture at another size, far for another picture")
    func perceptualHash() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/big.png", .ok(try Self.blocks(width: 256, height: 192), contentType: "image/png"))
        harness.origin.route("/small.png", .ok(try Self.blocks(width: 64, height: 48), contentType: "image/png"))
        harness.origin.route("/halves.png", .ok(try Self.halves(RGBA(r: 200, g: 0, b: 0), RGBA(r: 0, g: 0, b: 100)), contentType: "image/png"))
        var hashes: [String: UInt64] = [:]
        for (path, option) in [("/big.png", "ph:1"), ("/small.png", "perceptual_hash:1"), ("/halves.png", "phash:1")] {
            let (status, extras, text) = try await info(harness, path, option)
            #expect(status == 200, "\(text)")
            let hash = extras?.perceptual_hash ?? ""
            #expect(hash.count == 16 && hash.allSatisfy(\.isHexDigit), "\(path): \(hash)")
            hashes[path] = UInt64(hash, radix: 16)
        }
        guard let big = hashes["/big.png"], let small = hashes["/small.png"], let other = hashes["/halves.png"] else { return }
        #expect((big ^ small).nonzeroBitCount <= 6, "same picture: \(String(big, radix: 16)) vs \(String(small, radix: 16))")
        #expect((big ^ other).nonzeroBitCount >= 16, "another picture: \(String(big, radix: 16)) vs \(String(other, radix: 16))")
    }

    @Test("Given ph, avg and p, then the JSON holds imgproxy's documented shapes exactly: a 16-digit lowercase hex string, {R,G,B,A} objects of whole numbers 0-255")
    func documentedShapes() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/blocks.png", .ok(try Self.blocks(width: 64, height: 48), contentType: "image/png"))
        let reply = try await harness.get("/info" + harness.plainPath("/blocks.png", options: "perceptual_hash:1/average:1/palette:3"))
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.header("Content-Type")?.hasPrefix("application/json") == true)
        let object = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any], "\(reply.text)")
        // imgproxy's examples: "perceptual_hash": "9797306d694b4e94"; "average": { "R": 139, "G": 132, "B": 121, "A": 255 };
        // "palette": [{ "R": 189, "G": 178, "B": 169, "A": 255 }, …].
        let hash = try #require(object["perceptual_hash"] as? String, "\(reply.text)")
        #expect(hash.count == 16 && hash.allSatisfy { $0.isNumber || ("a"..."f").contains($0) }, "\(hash)")
        func isColor(_ value: Any?) -> Bool {
            guard let color = value as? [String: Any], Set(color.keys) == ["R", "G", "B", "A"] else { return false }
            return color.values.allSatisfy { ($0 as? NSNumber).map { Double($0.intValue) == $0.doubleValue && (0...255).contains($0.intValue) } ?? false }
        }
        #expect(isColor(object["average"]), "\(reply.text)")
        let palette = try #require(object["palette"] as? [Any], "\(reply.text)")
        #expect((1...3).contains(palette.count) && palette.allSatisfy(isColor), "\(reply.text)")
        // Whole numbers written as such, never 139.0.
        for key in ["\"average\":{", "\"palette\":[{"] {
            let start = try #require(reply.text.range(of: key), "\(key) in \(reply.text)")
            let part = reply.text[start.upperBound...].prefix { $0 != "}" }
            #expect(!part.contains("."), "\(key): \(part)")
        }
    }

    @Test("Given hostile info arguments, then 400 names the option")
    func hostileValues() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/halves.png", .ok(try Self.halves(RGBA(r: 200, g: 0, b: 0), RGBA(r: 0, g: 0, b: 100)), contentType: "image/png"))
        for options in ["p:1", "p:257", "p:-1", "p:nan", "p:", "palette:99999999999999999999", "avg:maybe", "avg:1:2", "avg:1:1:1", "ph:2", "ph:"] {
            let reply = try await harness.get("/info" + harness.plainPath("/halves.png", options: options))
            let name = String(options.prefix { $0 != ":" })
            #expect(reply.status == 400 && reply.text.contains(name), "\(options) → \(reply.status) \(reply.text)")
        }
    }
}
