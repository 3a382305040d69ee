import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// The per-request limits (`max_src_resolution`, `max_src_file_size`, `max_animation_frames`,
/// `max_animation_frame_resolution`, `max_result_dimension`) over loopback HTTP: each lowers
/// the service's limit and never raises it.
@Suite(.timeLimit(.minutes(3))) struct ServiceRequestLimitsTests {
    @Test("Given max_src_resolution, then a source over it is 413 and one within it renders; a larger value does not raise the service's")
    func sourceResolution() async throws {
        let png = try TestImages.png(width: 40, height: 30)  // 1200 pixels
        let open = try await ServiceHarness.start()
        defer { Task { await open.stop() } }
        open.origin.route("/src.png", .ok(png, contentType: "image/png"))
        let lowered = try await open.get(open.plainPath("/src.png", options: "msr:0.001", ext: "png"))
        #expect(lowered.status == 413, "\(lowered.text)")
        #expect(lowered.text.contains("1000 pixels"), "\(lowered.text)")
        let within = try await open.get(open.plainPath("/src.png", options: "max_src_resolution:0.0012", ext: "png"))
        #expect(within.status == 200, "\(within.text)")

        let tight = try await ServiceHarness.start { $0.limits.maxSourcePixels = 1000 }
        defer { Task { await tight.stop() } }
        tight.origin.route("/src.png", .ok(png, contentType: "image/png"))
        let raised = try await tight.get(tight.plainPath("/src.png", options: "msr:100", ext: "png"))
        #expect(raised.status == 413, "a request cannot raise the service's limit: \(raised.text)")
    }

    @Test("Given max_src_resolution on an animation, then its frames count together, as imgproxy documents, unless max_animation_frame_resolution limits each frame")
    func sourceResolutionOfAnimations() async throws {
        let gif = try TestImages.animatedGIF(frames: 3)  // 40×30 frames: 1200 pixels each, 3600 in all
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/anim.gif", .ok(gif, contentType: "image/gif"))
        let summed = try await harness.get(harness.plainPath("/anim.gif", options: "msr:0.002", ext: "gif"))
        #expect(summed.status == 413, "3600 pixels in all over 2000: \(summed.text)")
        #expect(summed.text.contains("max_src_resolution"), "\(summed.text)")
        for (options, reason) in [
            ("msr:0.0036", "3600 pixels in all"), ("msr:0.002/mafr:0.0012", "each frame within max_animation_frame_resolution"),
        ] {
            let reply = try await harness.get(harness.plainPath("/anim.gif", options: options, ext: "gif"))
            #expect(reply.status == 200, "\(options) (\(reason)): \(reply.text)")
        }
    }

    @Test("Given max_src_file_size, then a source over it is 413, also for raw; a larger value does not raise the service's")
    func sourceFileSize() async throws {
        let png = try TestImages.png(width: 40, height: 30)
        let open = try await ServiceHarness.start()
        defer { Task { await open.stop() } }
        open.origin.route("/src.png", .ok(png, contentType: "image/png"))
        for options in ["msfs:\(png.count - 1)", "max_src_file_size:\(png.count - 1)/raw:1"] {
            let reply = try await open.get(open.plainPath("/src.png", options: options, ext: "png"))
            #expect(reply.status == 413, "\(options): \(reply.text)")
            #expect(reply.text.contains("max_src_file_size"), "\(options): \(reply.text)")
        }
        let exact = try await open.get(open.plainPath("/src.png", options: "msfs:\(png.count)", ext: "png"))
        #expect(exact.status == 200, "\(exact.text)")

        // imgproxy documents 0 as turning the check off: here it keeps the service's limit.
        let zero = try await open.get(open.plainPath("/src.png", options: "msfs:0", ext: "png"))
        #expect(zero.status == 200, "msfs:0 is imgproxy's 'no check of its own': \(zero.text)")

        let tight = try await ServiceHarness.start { $0.limits.maxSourceBytes = png.count - 1 }
        defer { Task { await tight.stop() } }
        tight.origin.route("/src.png", .ok(png, contentType: "image/png"))
        for options in ["msfs:100000000", "msfs:0"] {
            let raised = try await tight.get(tight.plainPath("/src.png", options: options, ext: "png"))
            #expect(raised.status == 413, "\(options) cannot raise the service's limit: \(raised.text)")
        }
    }

    @Test("Given max_animation_frames, then an animation with more frames is 413; a larger value does not raise the service's")
    func animationFrames() async throws {
        let gif = try TestImages.animatedGIF(frames: 4)
        let open = try await ServiceHarness.start()
        defer { Task { await open.stop() } }
        open.origin.route("/anim.gif", .ok(gif, contentType: "image/gif"))
        let lowered = try await open.get(open.plainPath("/anim.gif", options: "maf:3", ext: "gif"))
        #expect(lowered.status == 413, "\(lowered.text)")
        #expect(lowered.text.contains("4 frames exceed 3"), "\(lowered.text)")
        let within = try await open.get(open.plainPath("/anim.gif", options: "max_animation_frames:4", ext: "gif"))
        #expect(within.status == 200, "\(within.text)")
        #expect(try TestImages.decode(within.body).frames.count == 4)

        let tight = try await ServiceHarness.start { $0.limits.maxAnimationFrames = 3 }
        defer { Task { await tight.stop() } }
        tight.origin.route("/anim.gif", .ok(gif, contentType: "image/gif"))
        let raised = try await tight.get(tight.plainPath("/anim.gif", options: "maf:100", ext: "gif"))
        #expect(raised.status == 413, "a request cannot raise the service's limit: \(raised.text)")
    }

    @Test("Given max_animation_frame_resolution, then an animation with larger frames is 413, a still image is not limited by it")
    func animationFrameResolution() async throws {
        let gif = try TestImages.animatedGIF(frames: 3)  // 40×30 frames: 1200 pixels each
        let png = try TestImages.png(width: 40, height: 30)
        let open = try await ServiceHarness.start()
        defer { Task { await open.stop() } }
        open.origin.route("/anim.gif", .ok(gif, contentType: "image/gif"))
        open.origin.route("/src.png", .ok(png, contentType: "image/png"))
        let lowered = try await open.get(open.plainPath("/anim.gif", options: "mafr:0.001", ext: "gif"))
        #expect(lowered.status == 413, "\(lowered.text)")
        #expect(lowered.text.contains("max_animation_frame_resolution"), "\(lowered.text)")
        let within = try await open.get(open.plainPath("/anim.gif", options: "max_animation_frame_resolution:0.0012", ext: "gif"))
        #expect(within.status == 200, "\(within.text)")
        let still = try await open.get(open.plainPath("/src.png", options: "mafr:0.001", ext: "png"))
        #expect(still.status == 200, "a still source has no animation frames: \(still.text)")

        let tight = try await ServiceHarness.start { $0.limits.maxAnimationFramePixels = 1000 }
        defer { Task { await tight.stop() } }
        tight.origin.route("/anim.gif", .ok(gif, contentType: "image/gif"))
        for options in ["mafr:100", "mafr:0"] {
            let raised = try await tight.get(tight.plainPath("/anim.gif", options: options, ext: "gif"))
            #expect(raised.status == 413, "\(options) cannot raise the service's limit: \(raised.text)")
        }
    }

    @Test("Given max_result_dimension, then a larger result is scaled down to fit (imgproxy's behaviour); a larger value does not raise the service's")
    func resultDimension() async throws {
        let png = try TestImages.png(width: 40, height: 30)
        let open = try await ServiceHarness.start()
        defer { Task { await open.stop() } }
        open.origin.route("/src.png", .ok(png, contentType: "image/png"))
        for (options, expected) in [
            ("mrd:20", PixelSize(width: 20, height: 15)), ("max_result_dimension:10/rot:90", PixelSize(width: 8, height: 10)),
            ("mrd:40", PixelSize(width: 40, height: 30)), ("mrd:0", PixelSize(width: 40, height: 30)),
            ("mrd:24/pd:10", PixelSize(width: 24, height: 20)),
        ] {
            let reply = try await open.get(open.plainPath("/src.png", options: options, ext: "png"))
            #expect(reply.status == 200, "\(options): \(reply.text)")
            guard reply.status == 200 else { continue }
            #expect(try TestImages.decode(reply.body).pixelSize == expected, "\(options)")
        }
        let scaled = try TestImages.decode(try await open.get(open.plainPath("/src.png", options: "mrd:20", ext: "png")).body)
        let reference = try TestImages.decode(try await open.get(open.plainPath("/src.png", options: "rs:fit:20:20", ext: "png")).body)
        #expect(ServiceColorTests.maxChannelDifference(scaled.pixels, reference.pixels) <= 2, "the same scale as a fit to 20×20")

        let tight = try await ServiceHarness.start { $0.limits.maxResultDimension = 30 }
        defer { Task { await tight.stop() } }
        tight.origin.route("/src.png", .ok(png, contentType: "image/png"))
        let raised = try await tight.get(tight.plainPath("/src.png", options: "mrd:100", ext: "png"))
        #expect(raised.status == 400, "a request cannot raise the service's limit: \(raised.text)")
    }

    @Test("Given hostile values of the limits (negative, NaN, infinite, huge, empty, zero where it means nothing), then 400 names the option")
    func hostileValues() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 40, height: 30), contentType: "image/png"))
        let hostile = ["-1", "nan", "NaN", "inf", "-inf", "1e400", "99999999999999999999999", "", "0x10", "1:2"]
        for name in ["max_src_resolution", "msfs", "maf", "mafr", "mrd"] {
            for value in hostile {
                let reply = try await harness.get(harness.plainPath("/src.png", options: "\(name):\(value)", ext: "png"))
                #expect(reply.status == 400, "\(name):\(value) → \(reply.status) \(reply.text)")
                #expect(reply.text.contains(name), "\(name):\(value): \(reply.text)")
            }
        }
        for name in ["msr", "maf"] {
            let reply = try await harness.get(harness.plainPath("/src.png", options: "\(name):0", ext: "png"))
            #expect(reply.status == 400, "\(name):0 → \(reply.status) \(reply.text)")
        }
    }

    @Test("The limits are part of the canonical form (ETag and result keys)")
    func canonicalForm() throws {
        let plain = try ProcessingOptions.parse(segments: ["w:10"], presets: PresetTable())
        let limited = try ProcessingOptions.parse(segments: ["w:10", "mrd:5"], presets: PresetTable())
        #expect(plain.canonicalForm != limited.canonicalForm)
        #expect(limited.limits.resultDimension == 5)
    }
}

/// The settings of the per-request limits and chained pipelines.
@Suite struct RequestLimitsSettingsTests {
    @Test("The limit settings are read, named in the table with their defaults, and bad values are refused")
    func settings() throws {
        let (configuration, _, _) = try ImageServiceSettings.configuration(from: [
            "max-animation-frame-resolution": ["2.5"], "max-result-dimension": ["4096"], "max-chained-pipelines": ["3"],
        ])
        #expect(configuration.limits.maxAnimationFramePixels == 2_500_000)
        #expect(configuration.limits.maxResultDimension == 4096)
        #expect(configuration.maxChainedPipelines == 3)
        let defaults = ImageServiceConfiguration()
        #expect(defaults.maxChainedPipelines == 8 && defaults.limits.maxAnimationFramePixels == 0)
        for (name, value) in [("max-animation-frame-resolution", "0"), ("max-result-dimension", "16384"), ("max-chained-pipelines", "8")] {
            #expect(ImageServiceSettings.all.first { $0.name == name }?.defaultValue == value, "\(name)")
        }
        for (name, value) in [("max-animation-frame-resolution", "-1"), ("max-result-dimension", "0"), ("max-chained-pipelines", "nan")] {
            #expect(throws: ImageServiceSettings.Problem.self, "\(name)") { try ImageServiceSettings.configuration(from: [name: [value]]) }
        }
    }
}
