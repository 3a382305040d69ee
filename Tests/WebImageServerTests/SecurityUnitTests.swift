import Foundation
import Testing
@testable import WebImageServer

@Suite("Source URL normalisation (RFC 3986 §6.2.2)")
struct SourceURLNormalizerTests {
    @Test(arguments: [
        ("http://H/ok/../private.png", "http://h/private.png"),
        ("http://h/ok/%2e%2e/private.png", "http://h/private.png"),
        ("http://h/ok/%2E./private.png", "http://h/private.png"),
        ("http://h/ok/..\\private.png", "http://h/private.png"),
        ("HTTP://Example.COM:80/a/./b/../c.png", "http://example.com/a/c.png"),
        ("https://example.com:443/x.png", "https://example.com/x.png"),
        ("https://example.com:8443/x.png", "https://example.com:8443/x.png"),
        ("http://example.com:/x.png", "http://example.com/x.png"),
        ("http://example.com", "http://example.com/"),
        ("http://example.com/%7euser/%41.png?a=%7e&b=%2f#frag", "http://example.com/~user/A.png?a=~&b=%2F"),
        ("http://example.com/a%2fb.png", "http://example.com/a%2Fb.png"),
        ("http://[::1]:80/a/../b.png", "http://[::1]/b.png"),
        ("http://user@Example.com/../../x.png", "http://user@example.com/x.png"),
        ("local://dir/../x.png", "local://dir/../x.png"),
        // Found by the source-url fuzz target: a prepended scalar (U+0600) joined the `/` after
        // it into one Character, which kept `..` segments; non-ASCII is percent-encoded first.
        ("http://h/ok/x\u{0600}/../../private.png", "http://h/private.png"),
        ("http://h/caf\u{E9}.png?q=\u{E9}", "http://h/caf%C3%A9.png?q=%C3%A9"),
    ])
    func normalises(_ input: String, _ expected: String) throws {
        #expect(try SourceURLNormalizer.normalize(input) == expected)
    }

    @Test(arguments: [
        "http://h/%zz.png", "http://h/%2.png", "http://h/x%", "http://[::1/x.png", "http:///x.png",
        // Found by the source-url fuzz target: a colon in an unbracketed host, a port with letters.
        "http://:65536htTp://e//xaxamevil.mevil.", "http://a:b:80/x", "http://h:8o/x", "http://h h/x",
        // A host that is not ASCII (the fuzz target's `http://\u{FFFD}\u{708}\u{708}\u{72E}\u{600}`
        // normalised differently a second time): it must be written in punycode.
        "http://\u{FFFD}\u{708}\u{708}\u{72E}\u{600}", "http://b\u{FC}cher.example/x.png",
    ])
    func refusesMalformed(_ input: String) {
        #expect(throws: ImageServiceError.self) { try SourceURLNormalizer.normalize(input) }
    }
}

@Suite("SVG sanitiser")
struct SVGSanitizerTests {
    func clean(_ text: String) -> String {
        String(decoding: SVGSanitizer.sanitize(Array(text.utf8)), as: UTF8.self)
    }

    @Test func removesScriptsHandlersAndExternalReferences() {
        let cases: [(String, String)] = [
            ("<svg><script>alert(1)</script><rect/></svg>", "<svg><rect/></svg>"),
            ("<svg><SCRIPT type=\"a\">x<script>y</script>z</SCRIPT><g/></svg>", "<svg><g/></svg>"),
            ("<svg><svg:script>x</svg:script></svg>", "<svg></svg>"),
            ("<svg onload=\"a()\" width=\"1\"/>", "<svg width=\"1\"/>"),
            ("<a href=\"javascript:x\" xlink:href=\" JavaScript:y\">t</a>", "<a>t</a>"),
            ("<image href=\"http://e/x.png\"/><use href=\"#k\"/>", "<image/><use href=\"#k\"/>"),
            ("<image href=\"data:image/png;base64,AAAA\"/>", "<image href=\"data:image/png;base64,AAAA\"/>"),
            ("<image href=\"data:image/svg+xml;base64,AAAA\"/>", "<image/>"),
            ("<a href=\"&#106;avascript:x\">t</a>", "<a>t</a>"),
            ("<foreignObject><div>x</div></foreignObject><g/>", "<g/>"),
            ("<set attributeName=\"onclick\" to=\"x\"/>", "<set to=\"x\"/>"),
            ("<rect style=\"fill:url(http://e/x)\"/>", "<rect style=\"fill:url(#)\"/>"),
            ("<rect fill=\"url(#g)\"/>", "<rect fill=\"url(#g)\"/>"),
            ("<style>@import url(http://e/a.css); .a{fill:url(http://e/x)}</style>", "<style> .a{fill:url(#)}</style>"),
            ("<STYLE>.a{}</Style><g/>", "<STYLE>.a{}</Style><g/>"),
            ("<!DOCTYPE svg [<!ENTITY a \"<script>\">]><svg/>", "<svg/>"),
            ("<?xml-stylesheet href=\"http://e/a.css\"?><svg/>", "<svg/>"),
            ("<svg>a < b</svg>", "<svg>a &lt; b</svg>"),
            // Found by the svg-sanitizer fuzz target: a tag that never ends hides the rest.
            (#"<svg><a rhe="javascript:z<re</svg>"#, "<svg>"),
            ("<?xml vers<i", ""),
            (#"<image href="data:image/png;<!ENTITYA"/>"#, "<image/>"),
            // A style sheet is judged whole: pieces cut by `<` cannot join into a reference.
            ("<svg><style>a{fill:url<(http://e/x)}</style></svg>", "<svg><style>a{fill:url(#)}</style></svg>"),
            ("<svg><style><![CDATA[@imp]]><![CDATA[ort url(http://e)]]></style></svg>", "<svg><style></style></svg>"),
            (#"<svg><g a='x"y' style='fill:red'/></svg>"#, #"<svg><g a='x"y' style="fill:red"/></svg>"#),
            // Found by the svg-sanitizer fuzz target: escaping a quote adds a `&`, which
            // the `url(…)` rule refuses, so such a value is judged as written and dropped.
            (#"<g fill=url(#a)"'x />"#, "<g/>"),
            (#"<g fill=url(#a)<x />"#, "<g/>"),
            (#"<g a=x"'y />"#, #"<g a="x&quot;'y"/>"#),
            // Found by the svg-sanitizer fuzz target: a `url(` value with a `<` (written as `&lt;`).
            ("<f teN\u{E1}me=url(<#a) />", "<f/>"),
            // Found by the svg-sanitizer fuzz target: a combining mark after `(` or `:` joins it
            // into one grapheme cluster, which hid `url(` and `javascript:` from `String`
            // matching; values are judged on bytes.
            ("<rect fill=\"url(\u{05A4}http://e/x)\"/>", "<rect fill=\"url(#)\"/>"),
            ("<rect style=\"fill:URL(\u{0300}http://e/x)\"/>", "<rect style=\"fill:URL(#)\"/>"),
            ("<set attributeName=\"x\" to=\"javascript:\u{0300}alert(1)\"/>", "<set attributeName=\"x\"/>"),
            ("<rect fill=\"url(\u{0300}#g)&amp;\"/>", "<rect/>"),
            // Found by the svg-sanitizer fuzz target: an unterminated `url(#…` kept the rest of
            // the value, where a second `url(` named an outside target.
            (#"<g fill='url(#a"/ url(http://e/x' />"#, "<g fill=\"url(#\"/>"),
            (#"<g fill="url(#a url(http://e/x)"/>"#, "<g fill=\"url(#)\"/>"),
            (#"<g style="fill:url(#a);stroke:url(#b"/>"#, "<g style=\"fill:url(#a);stroke:url(#\"/>"),
            // Found by the svg-sanitizer fuzz target: an XML declaration with a combining mark
            // and control bytes was kept; only printable-ASCII declarations are.
            ("<?xml \u{031A}ef:on=\"0.0\u{01}\0\0=\"?><svg/>", "<svg/>"),
            ("<?xmL C?><svg/>", "<svg/>"),
            ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg/>", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg/>"),
            // The declaration's name is `xml` in lower case: any other case is a processing
            // instruction to an XML parser, and dropped.
            ("<?XML version=\"1.0\"?><svg/>", "<svg/>"),
            // A control byte XML forbids (NUL, U+0001…U+001F but tab, LF, CR) drops its value.
            ("<g fill=\"re\0d\" x=\"1\"/>", "<g x=\"1\"/>"),
            ("<use href=\"#a\u{01}\" y=\"2\"/>", "<use y=\"2\"/>"),
            ("<g fill=\"url(#a\0\0b)\"/>", "<g/>"),
            ("<g d=\"M0\t0\nL1\r1\"/>", "<g d=\"M0\t0\nL1\r1\"/>"),
            // Found by the svg-sanitizer fuzz target's second-pass check: removing a piece of a
            // style sheet joined its neighbours into something a pass removes (an `@import` of a
            // string, which no `url(` rule sees; a `]]>`, which XML forbids in text): such a
            // sheet is dropped.
            (#"<style>@imp@import a;ort "http://e/x.css";</style>"#, "<style></style>"),
            (#"<g style='@imp@import a;ort "http://e/x.css";'/>"#, #"<g style=""/>"#),
            ("<style>a{}]]<></style>", "<style></style>"),
            // A value written with `&quot;` is kept only when that form is kept as it is (CSS
            // with a `&` is dropped on a second reading).
            ("<g style=a\"'b />", "<g/>"),
            ("<!-- <script>x</script> --><svg/>", "<svg/>"),
            ("<svg><![CDATA[<script>x</script>]]></svg>", "<svg>&lt;script&gt;x&lt;/script&gt;</svg>"),
        ]
        for (input, expected) in cases {
            #expect(clean(input) == expected, "\(input)")
        }
    }

    /// The svg-sanitizer fuzz target's finding, replayed: every `url(` left in a kept
    /// attribute names a target inside the document.
    @Test func fuzzFindingUnterminatedURLKeepsNoOutsideTarget() throws {
        let input = try #require(Data(base64Encoded: "MAAAADxtbCB2ZXJzc9bvP71pF2VmPXVybCgjYSIvPjxz1u8/vWkXZWY9dXJsKCNhIi8+PHNz1u8/vWkXZWY9dXJsKCNhIi8AAABZUHVlZj11cmwoZWY9dXJsKCNhIi8+PHNz1u8/vWkXZWY9dXJsKCNhIi9sIHZlcnNz1u8/vWkXZWY9dXJsKCNhIi8+PHNz1u8/vWkXZWY9AABcAAAAAABZUHVybChnAAA+L2EvYS9zdmc="))
        let out = SVGSanitizer.sanitize(Array(input))
        var index = 0
        var values = 0
        while index < out.count, let open = out[index...].firstIndex(of: UInt8(ascii: "<")) {
            guard let tag = SVGSanitizer.Tag.parse(out, at: open) else { index = open + 1; continue }
            for case let (_, value?) in tag.attributes {
                values += 1
                let text = String(decoding: value, as: UTF8.self).lowercased()
                for rest in text.components(separatedBy: "url(").dropFirst() {
                    let target = String(rest.prefix { $0 != ")" }).trimmingCharacters(in: CharacterSet(charactersIn: " \"'"))
                    #expect(SVGSanitizer.isLocalReference(target), "<\(tag.name)> keeps url(\(target.debugDescription)")
                }
            }
            index = tag.end
        }
        #expect(values > 0)
    }

    /// The svg-sanitizer fuzz target's finding `<?xmL C?>`, replayed: a processing instruction
    /// whose name is `xml` in another case was kept as if it were the XML declaration.
    @Test func fuzzFindingMixedCaseDeclarationIsDropped() throws {
        let input = try #require(Data(base64Encoded: "PD94bUwgQz8+"))
        let out = SVGSanitizer.sanitize(Array(input))
        #expect(!out.contains(UInt8(ascii: "<")), "\(String(decoding: out, as: UTF8.self).debugDescription)")
    }

    /// What the sanitiser writes is what it would keep: a second pass changes nothing, and no
    /// kept value holds a byte XML forbids (the fuzz findings' inputs and hostile values).
    @Test func sanitisedOutputIsAFixedPoint() throws {
        let findings = [
            "JoKWKY90PjxhIWh/AHN0eWxlPVsiJ2gvdXJsKHN2Zz48cyB4bT86c3JlZng9WyInaC91cmwoc2U9IiIgAHN0eWxlPT48QS8+PHN/Zng9WyInaC91cmk+PGEgeA==",
            "PHN2ZwAvPjxzdHlsZT5AaW1wb3J0IHVtPC8oc3R5bV1dXV1dO2woc2hyZWY9XV1dXT4+",
            "MAAAADxtbCB2ZXJzc9bvP71pF2VmPXVybCgjYSIvPjxz1u8/vWkXZWY9dXJsKCNhIi8+PHNz1u8/vWkXZWY9dXJsKCNhIi8AAABZUHVlZj11cmwoZWY9dXJsKCNhIi8+PHNz1u8/vWkXZWY9dXJsKCNhIi9sIHZlcnNz1u8/vWkXZWY9dXJsKCNhIi8+PHNz1u8/vWkXZWY9AABcAAAAAABZUHVybChnAAA+L2EvYS9zdmc=",
            "PD94bUwgQz8+",
        ].map { Array(Data(base64Encoded: $0)!) }
        let values = ["a\0b", "url(#x\0)", "url(http://e/\u{1F}x)", "#f\u{0B}", "u\0rl(http://e/x)", "java\0script:x"]
        let inputs = findings + values.flatMap { value in
            ["fill", "href", "style", "to"].map { Array("<g \($0)=\"\(value)\"/>".utf8) }
        }
        for input in inputs {
            let once = SVGSanitizer.sanitize(input)
            #expect(SVGSanitizer.sanitize(once) == once, "\(String(decoding: input, as: UTF8.self).debugDescription)")
            var index = 0
            while index < once.count, let open = once[index...].firstIndex(of: UInt8(ascii: "<")) {
                guard let tag = SVGSanitizer.Tag.parse(once, at: open) else { index = open + 1; continue }
                for case let (name, value?) in tag.attributes {
                    #expect(!value.contains { $0 < 0x20 && ![0x09, 0x0A, 0x0D].contains($0) }, "\(String(decoding: name, as: UTF8.self))")
                }
                index = tag.end
            }
        }
    }

    @Test func keepsTheXMLDeclarationAndOrdinaryDocuments() {
        let svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 1 1\"><path d=\"M0 0h1v1z\" fill=\"#fff\"/></svg>"
        #expect(clean(svg) == svg)
    }

    @Test func unterminatedInputEndsCleanly() {
        for input in ["<svg", "<svg a=\"", "<![CDATA[x", "<!-- x", "<!DOCTYPE [", "<script>never closed", "<", "<a b=c"] {
            let out = clean(input)
            #expect(!out.lowercased().contains("script"), "\(input) → \(out)")
        }
    }
}

@Suite("Local source root")
struct LocalSourceRootTests {
    /// `café` (precomposed) and `cafe` + U+0301 are equal as Swift strings but different
    /// directories on disk: the root check compares bytes.
    @Test func aCanonicallyEquivalentSiblingIsOutsideTheRoot() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("local-root-\(UUID().uuidString)")
        let root = base.appendingPathComponent("caf\u{E9}")
        let sibling = base.appendingPathComponent("cafe\u{301}")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: sibling, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        try Data([1]).write(to: root.appendingPathComponent("in.png"))
        try Data([2]).write(to: sibling.appendingPathComponent("secret.png"))
        var configuration = ImageServiceConfiguration()
        configuration.localRoot = root
        let policy = SourcePolicy(configuration: configuration)
        #expect(try policy.localPath(of: "local:///in.png").hasSuffix("/in.png"))
        #expect(throws: ImageServiceError.self) { try policy.localPath(of: "local:///../cafe\u{301}/secret.png") }
    }
}
