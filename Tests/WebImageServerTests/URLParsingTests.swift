import Testing
@testable import WebImageServer

@Suite struct URLParsingTests {
    func parse(_ path: String, presets: PresetTable = PresetTable()) throws -> (ImageRequestPath, ProcessingOptions) {
        let request = try ImageRequestPath(path: path)
        return (request, try ProcessingOptions.parse(segments: request.optionSegments, presets: presets))
    }

    func expectBadOption(_ path: String, named option: String, presets: PresetTable = PresetTable()) {
        do {
            _ = try parse(path, presets: presets)
            Issue.record("expected a bad-option error for \(path)")
        } catch let error as ImageServiceError {
            guard case let .badOption(name, _) = error else { Issue.record("got \(error) for \(path)"); return }
            #expect(name == option, "\(path)")
            #expect(error.status == 400)
            #expect(error.description.contains(option))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func base64SourceSplitBySlashesWithExtension() throws {
        let (request, options) = try parse("/sig/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png")
        #expect(request.signature == "sig")
        #expect(request.signedPath == "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png")
        #expect(request.source == "http://example.com/images/curiosity.jpg")
        #expect(request.extensionFormat == .png)
        #expect(options.resizingType == .fill && options.width == 300 && options.height == 400 && !options.enlarge)
        #expect(options.gravity == .smart)
    }

    @Test func plainSourceWithPercentEncodingAndExtension() throws {
        let (request, options) = try parse("/insecure/w:100/plain/http://example.com/a%20b.jpg%3Fv%3D1@webp")
        #expect(request.source == "http://example.com/a b.jpg?v=1")
        #expect(request.extensionFormat == .webp)
        #expect(options.width == 100)
        let (noExt, _) = try parse("/unsafe/plain/local:///x/y.png")
        #expect(noExt.source == "local:///x/y.png" && noExt.extensionFormat == nil)
    }

    @Test func defaultsAreImgproxys() throws {
        let (_, options) = try parse("/_/plain/http://e.com/a.jpg")
        #expect(options == ProcessingOptions())
        #expect(options.resizingType == .fit && options.width == 0 && options.height == 0 && options.dpr == 1)
        #expect(!options.enlarge && !options.extend && options.gravity == .center && options.quality == 0)
        #expect(options.format == nil && options.background == nil && options.blur == 0 && options.rotate == 0)
    }

    @Test func longAndShortNamesAgree() throws {
        let pairs: [(String, String)] = [
            ("resize:fill-down:10:20:1:1", "rs:fill-down:10:20:1:1"), ("size:10:20:t:f", "s:10:20:t:f"),
            ("resizing_type:force", "rt:force"), ("width:5", "w:5"), ("height:6", "h:6"), ("enlarge:1", "el:1"),
            ("extend:1:so:2:3", "ex:1:so:2:3"), ("gravity:fp:0.25:0.75", "g:fp:0.25:0.75"),
            ("crop:100:0.5:nowe", "c:100:0.5:nowe"), ("trim:10:fff:1:0", "t:10:fff:1:0"), ("quality:70", "q:70"),
            ("format_quality:webp:60:jpg:80", "fq:webp:60:jpg:80"), ("format:avif", "f:avif"), ("ext:gif", "f:gif"),
            ("background:255:0:10", "bg:ff000a"), ("blur:2.5", "bl:2.5"), ("sharpen:0.7", "sh:0.7"),
            ("rotate:-90", "rot:270"), ("auto_rotate:0", "ar:false"), ("strip_metadata:1", "sm:true"),
            ("strip_color_profile:0", "scp:false"), ("flip:1:0", "fl:t"), ("padding:5:6", "pd:5:6:5:6"),
            ("watermark:0.5:re:10:0:0", "wm:0.5:re:10"),
            ("cachebuster:v2", "cb:v2"), ("expires:4102444800", "exp:4102444800"), ("max_bytes:5000", "mb:5000"),
            ("return_attachment:1", "att:1"), ("filename:cat", "fn:Y2F0:1"), ("skip_processing:gif:png", "skp:png:gif"),
        ]
        for (long, short) in pairs {
            let (_, a) = try parse("/_/\(long)/plain/http://e.com/a.jpg")
            let (_, b) = try parse("/_/\(short)/plain/http://e.com/a.jpg")
            #expect(a == b, "\(long) vs \(short)")
            #expect(a != ProcessingOptions(), "\(long) changed nothing")
            #expect(a.canonicalForm == b.canonicalForm)
        }
        let (_, raw) = try parse("/_/raw:1/plain/http://e.com/a.jpg")
        #expect(raw.raw)
    }

    @Test func argumentValues() throws {
        let (_, o) = try parse("/_/rs:auto:300::1/g:soea:10:0.5/ex:1:fp:0.1:0.9/c:0.5:200:we/bg:abc/fq:webp:60/plain/x")
        #expect(o.resizingType == .auto && o.width == 300 && o.height == 0 && o.enlarge)
        #expect(o.gravity == .anchor(.southEast, xOffset: 10, yOffset: 0.5))
        #expect(o.extend && o.extendGravity == .focusPoint(x: 0.1, y: 0.9))
        #expect(o.crop == CropArea(width: 0.5, height: 200, gravity: .anchor(.west, xOffset: 0, yOffset: 0)))
        #expect(o.background == RGBColor(red: 0xaa, green: 0xbb, blue: 0xcc))
        #expect(o.formatQuality == [.webp: 60])
        let (_, later) = try parse("/_/w:10/w:20/bg:fff/bg:/plain/x")
        #expect(later.width == 20 && later.background == nil)
    }

    @Test func unknownOptionsAndBadArgumentsNameTheOption() {
        // imgproxy Pro's watermark text is not offered.
        expectBadOption("/_/watermark_text:aGk/plain/x", named: "watermark_text")
        expectBadOption("/_/watermark:2/plain/x", named: "watermark")
        expectBadOption("/_/rs:stretch:10/plain/x", named: "rs")
        expectBadOption("/_/w:-1/plain/x", named: "w")
        expectBadOption("/_/w:abc/plain/x", named: "w")
        expectBadOption("/_/h:99999999/plain/x", named: "h")
        expectBadOption("/_/q:101/plain/x", named: "q")
        expectBadOption("/_/el:yes/plain/x", named: "el")
        expectBadOption("/_/g:middle/plain/x", named: "g")
        expectBadOption("/_/g:fp:2:0/plain/x", named: "g")
        expectBadOption("/_/ex:1:sm/plain/x", named: "ex")
        expectBadOption("/_/rot:45/plain/x", named: "rot")
        expectBadOption("/_/dpr:0/plain/x", named: "dpr")
        expectBadOption("/_/f:tiff/plain/x", named: "f")
        expectBadOption("/_/bg:12:34/plain/x", named: "bg")
        expectBadOption("/_/fq:webp/plain/x", named: "fq")
        expectBadOption("/_/pr:nope/plain/x", named: "pr")
        expectBadOption("/_/w:1:2/plain/x", named: "w")
        expectBadOption("/_/plain/http://e.com/a.jpg@bmp", named: "extension")
    }

    @Test func malformedPathsAreBadURLs() {
        for path in ["/", "/sig", "/sig/w:10", "/sig/!!!notbase64", "/sig/plain/", "/sig/plain/%zz"] {
            #expect(throws: ImageServiceError.self, "\(path)") { try ImageRequestPath(path: path) }
        }
        #expect(throws: ImageServiceError.badURL("path too long")) {
            try ImageRequestPath(path: "/s/plain/" + String(repeating: "a", count: 9000))
        }
    }

    @Test func presetsExpandInPlaceAndDefaultAppliesFirst() throws {
        var presets = PresetTable()
        try presets.define("default=q:50/w:10")
        try presets.define("thumb", options: "rs:fill:64:64/f:webp")
        try presets.define("nested", options: "pr:thumb/bl:1")
        let (_, plain) = try parse("/_/plain/x", presets: presets)
        #expect(plain.quality == 50 && plain.width == 10)
        let (_, thumb) = try parse("/_/w:5/pr:thumb/plain/x", presets: presets)
        #expect(thumb.width == 64 && thumb.height == 64 && thumb.resizingType == .fill && thumb.format == .webp)
        #expect(thumb.quality == 50 && thumb.presets == ["thumb"])
        let (_, override) = try parse("/_/preset:thumb/w:5/plain/x", presets: presets)
        #expect(override.width == 5)
        let (_, nested) = try parse("/_/pr:nested/plain/x", presets: presets)
        #expect(nested.blur == 1 && nested.width == 64)
        #expect(throws: ImageServiceError.self) { var p = PresetTable(); try p.define("bad", options: "w:oops") }
        #expect(throws: ImageServiceError.self) { var p = PresetTable(); try p.define("noequals") }
    }

    @Test func presetCyclesAreRefused() throws {
        var presets = PresetTable()
        try presets.define("a", options: "w:1")
        try presets.define("b", options: "pr:a")
        // Redefining a as pr:b would make a → b → a …: refused when defined, at start.
        #expect(throws: ImageServiceError.badOption(option: "pr", reason: "presets nested too deeply")) {
            try presets.define("a", options: "pr:b")
        }
        #expect(presets.presets["a"] == ["w:1"])
    }
}
