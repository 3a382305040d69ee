import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// `autoquality`/`aq` (SPEC V-15) over HTTP on loopback: the SSIMULACRA2 search meets its
/// target on the corpus's photos and graphics with at most 2.5 encodes a request on average,
/// `size` fits its byte target, and hostile arguments are 400s that say why.
@Suite(.timeLimit(.minutes(30))) struct ServiceAutoQualityTests {
    /// Photos, then graphics (flat colours, lines, text, gradients), read in place.
    static let corpus = [
        "exif-orientation/Landscape_1.jpg", "jpeg-misc/progressive/3.jpg", "jpeg-misc/progressive/cat.jpg",
        "sdwebimage/TestICCProfile.jpg", "sdwebimage/TestImageStatic.webp", "webp-conformance/lossy_extreme_probabilities.webp",
        "jpeg-libjpeg-turbo/testorig.jpg", "sdwebimage/TestJFIF.jpg", "sdwebimage/TestHDR.jpeg",
        "pngsuite/PngSuite.png", "png-misc/bugfixes/debug_triangle_corners_widescreen.png", "sdwebimage/TestImage.png",
        "webp-conformance/lossless1.webp", "webp-misc/lossless_images/multi-color.webp", "webp-misc/lossless_images/simple.webp",
        "webp-conformance/lossless_color_transform.webp",
    ]

    @Test("Given the corpus as JPEG, WebP and AVIF, when asked for aq:s2:80, then every result scores at least 80 (or is the max-quality encode that cannot) with at most 2.5 encodes on average", .enabled(if: Corpus.isAvailable))
    func ssimulacra2SearchMeetsTargetWithFewEncodes() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        let scorer = SSIMULACRA2.Scorer()
        var requests = 0
        for (index, path) in Self.corpus.enumerated() {
            harness.origin.route("/c\(index)", .ok(try Corpus.data(path), contentType: "application/octet-stream"))
            let geometry = "rs:fit:320:320"
            let reference = try await harness.get(harness.plainPath("/c\(index)", options: geometry, ext: "png"))
            try #require(reference.status == 200, "\(path): \(reference.text)")
            let referencePixels = try TestImages.decode(reference.body).pixels
            for format in ["jpg", "webp", "avif"] {
                let reply = try await harness.get(harness.plainPath("/c\(index)", options: "\(geometry)/aq:s2:80", ext: format))
                try #require(reply.status == 200, "\(path) as \(format): \(reply.text)")
                requests += 1
                let score = try scorer.score(reference: referencePixels, distorted: TestImages.decode(reply.body).pixels)
                if score < 80 {
                    // Only allowed when even the highest quality of the range misses the target:
                    // then the answer is that encode.
                    let top = try await harness.get(harness.plainPath("/c\(index)", options: "\(geometry)/q:95", ext: format))
                    let topScore = try scorer.score(reference: referencePixels, distorted: TestImages.decode(top.body).pixels)
                    #expect(topScore < 80 && top.body == reply.body, "\(path) as \(format): scored \(score), q95 scores \(topScore)")
                }
            }
        }
        let searches = try #require(try await harness.metric("webimage_autoquality_searches_total"))
        let encodes = try #require(try await harness.metric("webimage_autoquality_encodes_total"))
        #expect(Int(searches) == requests)
        let average = encodes / searches
        print("autoquality ssimulacra2 80: \(Int(encodes)) encodes for \(Int(searches)) searches, \(average) on average")
        #expect(average <= 2.5)
    }

    @Test("Given aq:size:N, when rendered, then the file is at most N bytes, or the min-quality encode when none fits", .enabled(if: Corpus.isAvailable))
    func sizeSearchFitsItsTarget() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/photo", .ok(try Corpus.data("jpeg-misc/progressive/3.jpg"), contentType: "image/jpeg"))
        for (format, target) in [("jpg", 20_000), ("webp", 12_000), ("avif", 9_000), ("jpg", 3_000)] {
            let reply = try await harness.get(harness.plainPath("/photo", options: "aq:size:\(target):10:80", ext: format))
            try #require(reply.status == 200, "\(reply.text)")
            let full = try await harness.get(harness.plainPath("/photo", options: "q:80", ext: format))
            let floor = try await harness.get(harness.plainPath("/photo", options: "q:10", ext: format))
            if full.body.count <= target {
                #expect(reply.body == full.body, "\(format): the max quality fits, so it is the answer")
            } else if floor.body.count > target {
                #expect(reply.body == floor.body, "\(format): nothing fits, so the min quality")
            } else {
                #expect(reply.body.count <= target, "\(format): \(reply.body.count) bytes over \(target)")
                #expect(reply.body.count < full.body.count)
            }
        }
    }

    @Test("Given hostile aq arguments, then 400 with a plain reason")
    func hostileArgumentsAre400() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/a.png", .ok(try TestImages.png(width: 16, height: 16), contentType: "image/png"))
        let cases = [
            "aq:ml", "aq:s2:nan", "aq:s2:NaN", "aq:s2:inf", "aq:s2:1e400", "aq:s2:-5", "aq:s2:101", "aq:size:-1",
            "aq:size:99999999999999999999", "aq:size:1.5", "aq:dssim:0", "aq:dssim:2", "aq:s2:80:0", "aq:s2:80:90:70",
            "aq:s2:80:30:101", "aq:s2:80:30:95:-1", "aq:s2:80:30:95:nan", "aq:s2:80:30:95:2:9", "autoquality:bogus",
        ]
        for options in cases {
            let reply = try await harness.get(harness.plainPath("/a.png", options: options, ext: "jpg"))
            #expect(reply.status == 400, "\(options): \(reply.status)")
            #expect(reply.text.contains("aq") || reply.text.contains("autoquality"), "\(options): \(reply.text)")
        }
        for options in ["aq:none", "aq:s2", "aq:s2:70::", "aq:dssim:0.02:70:80:0.001", "autoquality:size:10240:10:80", "aq:", "aq::::"] {
            let reply = try await harness.get(harness.plainPath("/a.png", options: options, ext: "jpg"))
            #expect(reply.status == 200, "\(options): \(reply.status) \(reply.text)")
        }
    }

    @Test("Given aq with empty or missing arguments, then they are the service's autoquality setting's (imgproxy's aq redefines its config), or the method's defaults for another method")
    func omittedArgumentsTakeTheSetting() async throws {
        let setting = AutoQuality(method: .ssimulacra2, target: 85, minQuality: 40, maxQuality: 90, allowedError: 1)
        func resolved(_ options: String, over base: AutoQuality = setting) throws -> AutoQuality? {
            try ProcessingOptions.parse(segments: options.split(separator: "/").map(String.init), presets: PresetTable(), autoquality: base).autoquality
        }
        #expect(try resolved("aq::88") == AutoQuality(method: .ssimulacra2, target: 88, minQuality: 40, maxQuality: 90, allowedError: 1))
        #expect(try resolved("aq:s2") == setting)
        #expect(try resolved("autoquality:ssimulacra2::50") == AutoQuality(method: .ssimulacra2, target: 85, minQuality: 50, maxQuality: 90, allowedError: 1))
        #expect(try resolved("aq::::30") == AutoQuality(method: .ssimulacra2, target: 85, minQuality: 30, maxQuality: 30, allowedError: 1))
        #expect(try resolved("aq:") == setting)
        #expect(try resolved("aq:dssim") == AutoQuality.defaults(for: .dssim), "another method: its own defaults")
        #expect(try resolved("aq:none") == AutoQuality.none)
        #expect(try resolved("aq::88", over: .none) == AutoQuality.none, "no method anywhere: no search, as imgproxy's none")
        #expect(try resolved("w:10/-/aq::70") == AutoQuality(method: .ssimulacra2, target: 70, minQuality: 40, maxQuality: 90, allowedError: 1),
                "a later pipeline's aq is the request's")
        #expect(throws: ImageServiceError.self, "a target of the setting's method checked") { try resolved("aq::101") }
        #expect(throws: ImageServiceError.self) {
            try resolved("aq::0.5", over: AutoQuality.defaults(for: .size))
        }
        #expect(try ProcessingOptions.parse(segments: ["aq::88"], presets: PresetTable(), autoquality: setting).canonicalForm
            != ProcessingOptions.parse(segments: ["aq::89"], presets: PresetTable(), autoquality: setting).canonicalForm)

        let harness = try await ServiceHarness.start { $0.autoquality = setting }
        defer { Task { await harness.stop() } }
        harness.origin.route("/g.png", .ok(try TestImages.png(width: 96, height: 64), contentType: "image/png"))
        let reply = try await harness.get(harness.plainPath("/g.png", options: "aq::80", ext: "jpg"))
        #expect(reply.status == 200, "\(reply.text)")
        #expect(try await harness.metric("webimage_autoquality_searches_total") == 1, "the setting's method searched")
    }

    @Test("Given the autoquality settings, then they are read as the URL option is, and bad ones are refused")
    func settings() throws {
        let (configuration, _, _) = try ImageServiceSettings.configuration(from: [
            "autoquality-method": ["ssimulacra2"], "autoquality-target": ["85"], "autoquality-min": ["40"],
            "autoquality-format-max": ["avif=65,webp=80"],
        ])
        #expect(configuration.autoquality == AutoQuality(method: .ssimulacra2, target: 85, minQuality: 40, maxQuality: 95, allowedError: 2))
        #expect(configuration.autoqualityFormatMax == [.avif: 65, .webp: 80])
        for bad in [
            ["autoquality-method": ["ml"]], ["autoquality-method": [""]], ["autoquality-target": ["80"]], ["autoquality-method": ["s2"], "autoquality-target": ["nan"]],
            ["autoquality-format-min": ["avif=0"]], ["autoquality-format-max": ["tiff=50"]],
        ] {
            #expect(throws: ImageServiceSettings.Problem.self) { try ImageServiceSettings.configuration(from: bad) }
        }
    }

    @Test("Given the service's autoquality setting, when a request has no aq, then it searches; aq:none turns it off")
    func serviceSettingApplies() async throws {
        let harness = try await ServiceHarness.start {
            $0.autoquality = AutoQuality.defaults(for: .ssimulacra2)
        }
        defer { Task { await harness.stop() } }
        harness.origin.route("/g.png", .ok(try TestImages.png(width: 96, height: 64), contentType: "image/png"))
        let searched = try await harness.get(harness.plainPath("/g.png", ext: "jpg"))
        #expect(searched.status == 200)
        #expect(try await harness.metric("webimage_autoquality_searches_total") == 1)
        let plain = try await harness.get(harness.plainPath("/g.png", options: "aq:none", ext: "jpg"))
        #expect(plain.status == 200)
        #expect(try await harness.metric("webimage_autoquality_searches_total") == 1)
    }
}
