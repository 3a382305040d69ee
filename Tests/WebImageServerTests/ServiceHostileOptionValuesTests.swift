import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// Hostile values for every option of the imgproxy-compatible set this service added last
/// (colour filters, unsharp masking, resizing algorithm, crop aspect ratio, background alpha,
/// the encoder options, fallback image URL, animation and pages, the five per-request limits,
/// autoquality, `best`, chained pipelines and the `/info` extras), over real HTTP in one table:
/// huge, negative, NaN, infinite, empty, missing and too many arguments each answer 400 with a
/// plain-text reason naming the option, and never a 5xx. Extreme values that are allowed are
/// rendered without a 5xx.
@Suite(.timeLimit(.minutes(5))) struct ServiceHostileOptionValuesTests {
    /// Arguments past any option's last one.
    static let tooMany = String(repeating: ":1", count: 12)

    /// Each option's hostile argument lists (after the name), and the name the reason must
    /// hold. `nil` is the name alone: a segment without `:` starts the source URL (imgproxy's
    /// rule), so it is refused as a bad base64 source URL.
    static let hostile: [(name: String, arguments: [String?])] = [
        ("adjust", [nil, ":300", ":-300", "::-1", "::nan", ":::inf", "::1e400", ":1:2:3:4", ":x"]),
        ("a", ["::101", tooMany]),
        ("brightness", [nil, ":", ":256", ":-256", ":nan", ":1.5", ":99999999999999999999", ":1:2", tooMany]),
        ("br", [":-inf", ":0x10"]),
        ("contrast", [nil, ":", ":-1", ":nan", ":inf", ":1e400", ":101", ":1:2"]),
        ("co", [":-0.001", tooMany]),
        ("saturation", [nil, ":", ":-1", ":nan", ":-inf", ":1e400", ":101", ":1:2"]),
        ("sa", [":NaN", tooMany]),
        ("monochrome", [nil, ":", ":-1", ":2", ":nan", ":1e400", ":1:zzz", ":1:fff:1", tooMany]),
        ("mc", [":inf", ":0.5:12345"]),
        ("duotone", [nil, ":", ":-1", ":1.5", ":nan", ":1:12345", ":1:000:fffffff", ":1:000:fff:1", tooMany]),
        ("dt", [":-inf"]),
        ("colorize", [nil, ":", ":-1", ":1.5", ":nan", ":1e400", ":1:ggg", ":1:000:maybe", ":1:000:1:1", tooMany]),
        ("col", [":inf"]),
        ("gradient", [
            nil, ":", ":-1", ":2", ":nan", ":1:xyz", ":1:000:sideways", ":1:000:nan", ":1:000:1e400", ":1:000:-99999",
            ":1:000:down:-1", ":1:000:down:2", ":1:000:down:0.8:0.2", ":1:000:down:0:nan", ":1:000:down:0:1:1", tooMany,
        ]),
        ("gr", [":inf"]),
        ("unsharp_masking", [nil, ":sometimes", ":auto:0", ":auto:-1", ":auto:nan", ":auto:inf", ":auto:1e400", ":auto:1:0", ":auto:1:-24", ":auto:1:nan", ":auto:1:24:1", tooMany]),
        ("ush", [":always:99999999999999999999"]),
        ("resizing_algorithm", [nil, ":", ":bicubic", ":LANCZOS3", ":lanczos3:1", tooMany]),
        ("ra", [":-1"]),
        ("crop_aspect_ratio", [nil, ":", ":-1", ":nan", ":inf", ":1e400", ":10001", ":1:maybe", ":1:1:1", tooMany]),
        ("car", [":-inf"]),
        ("crop_ar", [":NaN"]),
        ("background_alpha", [nil, ":", ":-0.5", ":1.5", ":nan", ":inf", ":1e400", ":1:1", tooMany]),
        ("bga", [":-inf"]),
        ("jpeg_options", [nil, ":maybe", "::2", ":::x", "::::-1", ":::::nan", "::::::9", "::::::-1", "::::::1e400", ":1:1:1:1:1:1:1", tooMany]),
        ("jpgo", ["::::::99999999999999999999"]),
        ("png_options", [nil, ":maybe", "::x", "::1:1", "::1:257", "::1:-2", "::1:nan", "::1:99999999999999999999", ":1:1:2:3", tooMany]),
        ("pngo", ["::1:inf"]),
        ("webp_options", [nil, ":lossiest", "::maybe", ":::cartoon", ":lossy:1:default:1", tooMany]),
        ("webpo", [":-1"]),
        ("avif_options", [nil, ":sometimes", ":-1", ":nan", ":auto:1", tooMany]),
        ("avifo", [":ON"]),
        ("fallback_image_url", [nil, ":", ":!!!", ":aHR0cDovL2EvYi5wbmc:1"]),
        ("fiu", [tooMany]),
        ("disable_animation", [nil, ":", ":2", ":-1", ":maybe", ":1:1", tooMany]),
        ("da", [":nan"]),
        ("pages", [nil, ":", ":0", ":-1", ":nan", ":1.5", ":10000", ":99999999999999999999", ":1:1", tooMany]),
        ("pgs", [":inf"]),
        ("max_src_resolution", [nil, ":", ":0", ":-1", ":nan", ":inf", ":1e400", ":100001", ":99999999999999999999", ":1:1", tooMany]),
        ("msr", [":-inf", ":0x10"]),
        ("max_src_file_size", [nil, ":", ":-1", ":nan", ":1.5", ":1e400", ":99999999999999999999", ":1:1", tooMany]),
        ("msfs", [":inf"]),
        ("max_animation_frames", [nil, ":", ":0", ":-1", ":nan", ":1.5", ":99999999999999999999", ":1:1", tooMany]),
        ("maf", [":inf"]),
        ("max_animation_frame_resolution", [nil, ":", ":-1", ":nan", ":inf", ":1e400", ":100001", ":1:1", tooMany]),
        ("mafr", [":-inf"]),
        ("max_result_dimension", [nil, ":", ":-1", ":nan", ":1.5", ":99999999999999999999", ":1:1", tooMany]),
        ("mrd", [":inf"]),
        ("autoquality", [nil, ":bogus", ":ml", ":s2:nan", ":s2:inf", ":s2:1e400", ":s2:-5", ":s2:101", ":size:-1", ":size:99999999999999999999",
                         ":dssim:0", ":dssim:2", ":s2:80:0", ":s2:80:101", ":s2:80:90:70", ":s2:80:30:95:-1", ":s2:80:30:95:nan", tooMany]),
        ("aq", [":size:1.5", ":s2:80:30:95:2:9"]),
        ("format", [nil, ":", ":best:1", ":bmp", tooMany]),
        ("f", [":BEST!"]),
    ]

    /// The `/info` options' hostile arguments.
    static let hostileInfo: [(name: String, arguments: [String?])] = [
        ("perceptual_hash", [nil, ":", ":2", ":-1", ":nan", ":1:1", tooMany]),
        ("phash", [":maybe"]),
        ("ph", [":inf"]),
        ("average", [nil, ":", ":2", ":maybe", ":1:2", ":1:1:1", tooMany]),
        ("avg", [":nan"]),
        ("palette", [nil, ":", ":1", ":257", ":-1", ":nan", ":inf", ":2.5", ":99999999999999999999", ":2:2", tooMany]),
        ("p", [":1e400"]),
    ]

    /// Values at the edges of what is allowed, rendered without a server error.
    static let extremes = [
        "a:-255:100:100", "br:255", "co:0", "co:100", "sa:100", "mc:1:000", "dt:1:fff:000", "col:1:fff:1", "gr:1:fff:3600:0:0",
        "gr:1:fff:-3600:1:1", "gr:0.5:fff:45:0.5:0.5", "ush:always:1000000:0.000001", "ush:always:0.000001:1000000", "ra:nearest/w:1",
        "c:1:1/car:10000", "c:1:1/car:0.0001:1", "bg:fff/bga:0", "jpgo:1:1:1:1:1:8", "pngo:1:1:2", "webpo:near_lossless:1:text",
        "avifo:off", "da:1", "pgs:9999", "msr:100000", "msfs:1099511627776", "maf:1099511627776",
        "mafr:100000", "mafr:0", "mrd:1", "mrd:1099511627776", "aq:size:1:1:1", "aq:s2:100:100:100:0", "aq:dssim:1:1:100:1",
    ]

    private static func fixture(_ harness: ServiceHarness) throws {
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 24, height: 16), contentType: "image/png"))
    }

    private static func segment(_ name: String, _ arguments: String?) -> String { name + (arguments ?? "") }

    /// Checks one hostile request: 400, plain text, the option (or `bad URL`) named, no 5xx.
    private static func expectRefused(_ reply: ServiceHarness.Reply, _ options: String, naming name: String) {
        #expect(reply.status == 400, "\(options.prefix(80)) → \(reply.status) \(reply.text.prefix(200))")
        #expect(reply.text.contains(name), "\(options.prefix(80)): the reason names \(name): \(reply.text.prefix(200))")
        #expect(reply.header("Content-Type")?.hasPrefix("text/plain") == true, "\(options.prefix(80)): \(reply.header("Content-Type") ?? "no type")")
        #expect(reply.body.count < 1024, "\(options.prefix(80)): a short reason, \(reply.body.count) bytes")
    }

    @Test("Given each option with huge, negative, NaN, infinite, empty, missing or too many arguments, then 400 with a plain reason naming it")
    func hostileProcessingOptions() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        try Self.fixture(harness)
        var count = 0
        for (name, argumentLists) in Self.hostile {
            for arguments in argumentLists {
                let options = Self.segment(name, arguments)
                // Alone, and in the second pipeline of a chain: a later pipeline is checked as the first.
                for path in [options, "w:20/-/" + options] {
                    let reply = try await harness.get(harness.plainPath("/src.png", options: path, ext: "png"))
                    Self.expectRefused(reply, path, naming: arguments == nil ? "bad URL" : name)
                    count += 1
                }
            }
        }
        #expect(count > 300)
        #expect(harness.origin.requestCount("/src.png") == 0, "every refusal comes before the source is fetched")
    }

    @Test("Given each /info option with hostile arguments, then 400 with a plain reason naming it")
    func hostileInfoOptions() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        try Self.fixture(harness)
        for (name, argumentLists) in Self.hostileInfo {
            for arguments in argumentLists {
                let options = Self.segment(name, arguments)
                let reply = try await harness.get("/info" + harness.plainPath("/src.png", options: options))
                Self.expectRefused(reply, options, naming: arguments == nil ? "bad URL" : name)
            }
        }
        #expect(harness.origin.requestCount("/src.png") == 0, "every refusal comes before the source is fetched")
    }

    @Test("Given more chained pipelines than the limit, or thousands of them, then 400 naming the limit, never a 5xx")
    func tooManyPipelines() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        try Self.fixture(harness)
        for options in [
            Array(repeating: "w:20", count: 9).joined(separator: "/-/"), String(repeating: "-/", count: 2000) + "w:10",
            Array(repeating: "br:10", count: 500).joined(separator: "/-/"),
        ] {
            let reply = try await harness.get(harness.plainPath("/src.png", options: options, ext: "png"))
            Self.expectRefused(reply, options, naming: "max-chained-pipelines")
        }
    }

    @Test("Given the extreme values each option allows, then the answer is never a server error")
    func extremesAreNotServerErrors() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        try Self.fixture(harness)
        for options in Self.extremes {
            let reply = try await harness.get(harness.plainPath("/src.png", options: options, ext: "png"))
            #expect(reply.status < 500, "\(options) → \(reply.status) \(reply.text.prefix(200))")
            #expect(reply.status == 200, "\(options) → \(reply.status) \(reply.text.prefix(200))")
        }
        let pastLastPage = try await harness.get(harness.plainPath("/src.png", options: "pg:9999/da:1", ext: "png"))
        #expect(pastLastPage.status == 422, "a page past the last is the source's limit, not the server's: \(pastLastPage.text)")
        for options in ["ph:1/avg:1:0/p:256", "p:2/avg:1", "ph:0/avg:0/p:0"] {
            let reply = try await harness.get("/info" + harness.plainPath("/src.png", options: options))
            #expect(reply.status == 200, "\(options) → \(reply.status) \(reply.text.prefix(200))")
        }
    }
}
