import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// JPEG XL answers (SPEC V-6): a JPEG that no option changes is recompressed losslessly (its
/// bytes recoverable), anything else is encoded from pixels; `auto-jxl` negotiation.
@Suite struct ServiceJXLTests {
    static func jpeg(width: Int = 80, height: Int = 60) throws -> Data {
        try CodersManager.shared.encode(
            TestImages.gradient(width: width, height: height), format: .jpeg, options: EncodeOptions(quality: 0.85))
    }

    @Test("Given a JPEG and only answer options, when asked for JPEG XL, then it is recompressed losslessly and its bytes come back",
          arguments: ["", "q:50/cb:3/fn:x", "f:jxl"])
    func untouchedJPEGIsRecompressedLosslessly(options: String) async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        let source = try Self.jpeg()
        harness.origin.route("/photo.jpg", .ok(source, contentType: "image/jpeg"))
        let reply = try await harness.get(harness.plainPath("/photo.jpg", options: options, ext: options == "f:jxl" ? nil : "jxl"))
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.header("Content-Type") == "image/jxl")
        #expect(try JXLCoder().reconstructJPEG(reply.body) == source)
        #expect(try DJXLTool.reconstruct(reply.body) == source)
        #expect(reply.body.count < source.count)
    }

    @Test("Given a JPEG with EXIF, when recompressed, then metadata is stripped by default and kept byte for byte with sm:0",
          .enabled(if: Corpus.isAvailable))
    func metadataFollowsStripMetadata() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        let source = try Corpus.data("exif-orientation/Landscape_1.jpg")
        harness.origin.route("/exif.jpg", .ok(source, contentType: "image/jpeg"))
        let stripped = try await harness.get(harness.plainPath("/exif.jpg", ext: "jxl"))
        let strippedJPEG = try #require(try JXLCoder().reconstructJPEG(stripped.body))
        #expect(strippedJPEG == JPEGMetadataSegments.stripped(source))
        #expect(strippedJPEG.count < source.count)
        #expect(try CodersManager.shared.decode(strippedJPEG, options: DecodeOptions()).pixels.bytes
            == (try CodersManager.shared.decode(source, options: DecodeOptions()).pixels.bytes))
        let kept = try await harness.get(harness.plainPath("/exif.jpg", options: "sm:0", ext: "jxl"))
        #expect(try JXLCoder().reconstructJPEG(kept.body) == source)
    }

    @Test("Given a JPEG and a pixel-changing option or a turned JPEG, when asked for JPEG XL, then it is encoded from pixels")
    func changedPixelsAreEncoded() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/photo.jpg", .ok(try Self.jpeg(), contentType: "image/jpeg"))
        for options in ["w:40", "bl:2", "rot:90", "pd:2"] {
            let reply = try await harness.get(harness.plainPath("/photo.jpg", options: options, ext: "jxl"))
            #expect(reply.status == 200, "\(options): \(reply.text)")
            #expect(ImageFormat.detect(reply.body) == .jxl)
            #expect(try JXLCoder().reconstructJPEG(reply.body) == nil, "\(options)")
        }
        let resized = try await harness.get(harness.plainPath("/photo.jpg", options: "w:40", ext: "jxl"))
        let image = try TestImages.decode(resized.body)
        #expect(image.width == 40 && image.height == 30)
        if Corpus.isAvailable {
            harness.origin.route("/turned.jpg", .ok(try Corpus.data("exif-orientation/Landscape_6.jpg"), contentType: "image/jpeg"))
            let turned = try await harness.get(harness.plainPath("/turned.jpg", ext: "jxl"))
            #expect(try JXLCoder().reconstructJPEG(turned.body) == nil)
            #expect(try TestImages.decode(turned.body).width == 600)
        }
    }

    @Test("Given a PNG or an animated GIF, when asked for JPEG XL, then the pixels and frames are encoded")
    func otherSourcesAreEncoded() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 30, height: 20), contentType: "image/png"))
        harness.origin.route("/anim.gif", .ok(try TestImages.animatedGIF(frames: 4, delay: 0.2), contentType: "image/gif"))
        let still = try await harness.get(harness.plainPath("/src.png", ext: "jxl"))
        #expect(try TestImages.decode(still.body).width == 30)
        let animated = try await harness.get(harness.plainPath("/anim.gif", ext: "jxl"))
        let frames = try TestImages.decode(animated.body).frames
        #expect(frames.count == 4)
        for frame in frames { #expect(abs(frame.duration - 0.2) < 0.002) }
    }

    @Test("Given auto-jxl, when the client accepts JPEG XL, then it is answered before AVIF, with Vary: Accept")
    func autoJXLNegotiation() async throws {
        let on = try await ServiceHarness.start { $0.autoJXL = true; $0.autoAVIF = true }
        defer { Task { await on.stop() } }
        on.origin.route("/src.png", .ok(try TestImages.png(width: 16, height: 16), contentType: "image/png"))
        let jxl = try await on.get(on.plainPath("/src.png"), headers: [("Accept", "image/avif,image/jxl,image/webp")])
        #expect(jxl.header("Content-Type") == "image/jxl")
        #expect(jxl.header("Vary") == "Accept")
        let avif = try await on.get(on.plainPath("/src.png"), headers: [("Accept", "image/avif,image/webp")])
        #expect(avif.header("Content-Type") == "image/avif")
        #expect(jxl.header("ETag") != avif.header("ETag"))
        let off = try await ServiceHarness.start { $0.autoAVIF = true }
        defer { Task { await off.stop() } }
        off.origin.route("/src.png", .ok(try TestImages.png(width: 16, height: 16), contentType: "image/png"))
        let notAsked = try await off.get(off.plainPath("/src.png"), headers: [("Accept", "image/jxl,image/avif")])
        #expect(notAsked.header("Content-Type") == "image/avif")
    }

    @Test("Given jxl-effort 1 and 9, when a PNG is asked for as JPEG XL, then the encoder gets the effort: different files of the same picture")
    func effortReachesTheEncoder() async throws {
        let png = try TestImages.png(width: 96, height: 64)
        var bodies: [Data] = []
        for effort in [1, 9] {
            let harness = try await ServiceHarness.start { $0.jxlEffort = effort }
            defer { Task { await harness.stop() } }
            harness.origin.route("/src.png", .ok(png, contentType: "image/png"))
            let reply = try await harness.get(harness.plainPath("/src.png", ext: "jxl"))
            #expect(reply.status == 200 && reply.header("Content-Type") == "image/jxl", "\(reply.text)")
            #expect(try TestImages.decode(reply.body).pixelSize == PixelSize(width: 96, height: 64))
            bodies.append(reply.body)
        }
        #expect(bodies[0] != bodies[1], "effort 1 and 9 made the same \(bodies[0].count) bytes")
    }

    @Test("Given the jxl-effort, avif-speed and auto-jxl settings, then they parse within imgproxy's ranges and refuse others")
    func settingsParse() throws {
        let parsed = try ImageServiceSettings.configuration(from: ["jxl-effort": ["7"], "avif-speed": ["6"], "auto-jxl": ["true"]]).0
        #expect(parsed.jxlEffort == 7 && parsed.avifSpeed == 6 && parsed.autoJXL)
        let defaults = try ImageServiceSettings.configuration(from: [:]).0
        #expect(defaults.jxlEffort == 4 && defaults.avifSpeed == nil && !defaults.autoJXL)
        #expect(try ImageServiceSettings.configuration(from: ["avif-speed": ["auto"]]).0.avifSpeed == nil)
        for bad in [["jxl-effort": ["0"]], ["jxl-effort": ["10"]], ["avif-speed": ["-1"]], ["avif-speed": ["fast"]]] {
            #expect(throws: (any Error).self) { try ImageServiceSettings.configuration(from: bad) }
        }
    }
}

