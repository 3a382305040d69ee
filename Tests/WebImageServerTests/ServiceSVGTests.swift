import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// SVG sources through the service over loopback HTTP (SPEC V-7, C-3, V-5): rendered and
/// described by `/info` like any raster source, within the SVG budgets — the intrinsic size
/// against the source resolution limit, the element and filter-primitive counts and the drawing
/// time of ``ProcessingLimits/svgBudget`` — each refused with a plain 4xx reason.
@Suite(.timeLimit(.minutes(3))) struct ServiceSVGTests {
    static let open = #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" "#

    /// A 100×100 document: a red disc on a transparent ground.
    static let disc = open + ##"width="100" height="100"><circle cx="50" cy="50" r="40" fill="#f00"/></svg>"##

    /// `<use>` amplification: 7 levels of 10 references each, a million rectangles to draw.
    static var useBomb: String {
        var svg = open + ##"width="900" height="900"><defs><rect id="a0" width="900" height="900" fill="#f00" opacity="0.5"/>"##
        for level in 1..<7 {
            svg += #"<g id="a\#(level)">"# + String(repeating: ##"<use xlink:href="#a\##(level - 1)"/>"##, count: 10) + "</g>"
        }
        return svg + ##"</defs><use xlink:href="#a6"/></svg>"##
    }

    struct InfoJSON: Decodable {
        var width: Int
        var height: Int
        var format: String
        var frames: Int
    }

    static func start(_ budget: (inout SVGRenderBudget) -> Void = { _ in }) async throws -> ServiceHarness {
        try await ServiceHarness.start { configuration in
            // Other suites' abandoned drawings share the process-wide count; never refuse for theirs.
            configuration.limits.svgBudget.maxOverrunning = 64
            budget(&configuration.limits.svgBudget)
        }
    }

    @Test("Given a valid SVG source, then it renders as a raster at the requested size and /info describes it")
    func renders() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/disc.svg", .ok(Data(Self.disc.utf8), contentType: "image/svg+xml"))

        let half = try await harness.get(harness.plainPath("/disc.svg", options: "rs:fit:50:50", ext: "png"))
        #expect(half.status == 200, "\(half.text)")
        #expect(half.header("Content-Type") == "image/png")
        if half.status == 200 {
            let image = try TestImages.decode(half.body)
            #expect(image.pixelSize == PixelSize(width: 50, height: 50))
            #expect(image.pixels.pixel(x: 25, y: 25) == RGBA(r: 255, g: 0, b: 0))
            #expect(image.pixels.pixel(x: 1, y: 1).a == 0, "transparent outside the disc")
        }

        // No format named: PNG, which keeps the transparency (SVG is not encoded).
        let whole = try await harness.get(harness.plainPath("/disc.svg"))
        #expect(whole.status == 200, "\(whole.text)")
        #expect(whole.header("Content-Type") == "image/png")
        if whole.status == 200 {
            #expect(try TestImages.decode(whole.body).pixelSize == PixelSize(width: 100, height: 100))
        }

        let jpeg = try await harness.get(harness.plainPath("/disc.svg", options: "w:20", ext: "jpg"))
        #expect(jpeg.status == 200, "\(jpeg.text)")
        #expect(jpeg.header("Content-Type") == "image/jpeg")

        let info = try await harness.get("/info" + harness.plainPath("/disc.svg"))
        #expect(info.status == 200, "\(info.text)")
        if info.status == 200 {
            let json = try JSONDecoder().decode(InfoJSON.self, from: info.body)
            #expect(json.width == 100 && json.height == 100)
            #expect(json.format == "svg")
            #expect(json.frames == 1)
        }
    }

    @Test("Given an SVG over a budget (size, elements, filter primitives, drawing time), then the render and /info answer a plain 4xx")
    func budgets() async throws {
        let harness = try await Self.start { budget in
            budget.maxElements = 100
            budget.maxFilterPrimitives = 2
            budget.maxDuration = 0.25
        }
        defer { Task { await harness.stop() } }
        // 400 megapixels declared: refused from the size alone, nothing drawn.
        let huge = Self.open + ##"width="20000" height="20000"><rect width="10" height="10" fill="#f00"/></svg>"##
        let elements = Self.open + #"width="10" height="10">"# + String(repeating: #"<rect width="1" height="1"/>"#, count: 120) + "</svg>"
        let filters = Self.open + #"width="10" height="10"><filter id="f"><feOffset/><feOffset/><feOffset/></filter></svg>"#
        let cases: [(path: String, svg: String, status: Int, reason: String)] = [
            ("/huge.svg", huge, 413, "exceeds 50000000 pixels"),
            ("/elements.svg", elements, 413, "element"),
            ("/filters.svg", filters, 413, "filter"),
            ("/slow.svg", Self.useBomb, 422, "did not finish within its budget"),
        ]
        for item in cases {
            harness.origin.route(item.path, .ok(Data(item.svg.utf8), contentType: "image/svg+xml"))
        }
        for item in cases {
            for path in [harness.plainPath(item.path, options: "w:10", ext: "png"), "/info" + harness.plainPath(item.path)] {
                let reply = try await harness.get(path)
                #expect(reply.status == item.status, "\(path): \(reply.status) \(reply.text)")
                #expect(reply.text.contains(item.reason), "\(path): \(reply.text)")
                #expect(reply.header("Content-Type")?.hasPrefix("text/plain") == true, "\(path)")
            }
        }
        // Within the same budgets a small document still renders.
        harness.origin.route("/disc.svg", .ok(Data(Self.disc.utf8), contentType: "image/svg+xml"))
        let disc = try await harness.get(harness.plainPath("/disc.svg", options: "w:10", ext: "png"))
        #expect(disc.status == 200, "\(disc.text)")
    }
}

/// The `max-svg-time` setting.
@Suite struct SVGSettingsTests {
    @Test("Given max-svg-time, then the SVG budget's time is read, and a bad value is refused")
    func maxSVGTime() throws {
        #expect(try ImageServiceSettings.configuration(from: [:]).0.limits.svgBudget == .default)
        let configuration = try ImageServiceSettings.configuration(from: ["max-svg-time": ["2.5"]]).0
        #expect(configuration.limits.svgBudget.maxDuration == 2.5)
        for bad in ["0", "-1", "x", "3601"] {
            #expect(throws: ImageServiceSettings.Problem.self) { try ImageServiceSettings.configuration(from: ["max-svg-time": [bad]]) }
        }
    }
}
