// The service's parsers of what a stranger sends: the request path (signature, options,
// presets, plain and base64 sources, expiry), source URL normalisation and the download URL
// check, and the SVG sanitiser.
import AsyncHTTPClient
import Foundation
import NIOHTTP1
@testable import WebImage
@testable import WebImageServer

extension FuzzTarget {
    /// A signer and presets like a deployment's: every input is parsed and verified.
    static let requestPathTarget = FuzzTarget(
        name: "request-path",
        summary: "ImageRequestPath, ProcessingOptions.parse with presets, URLSigner.verify, SourceURLNormalizer on the source",
        maxLength: 8192, dictionary: "imgproxy.dict", usesImageCorpus: false,
        seeds: { requestPathSeeds.enumerated().map { ("path-\($0.offset)", Data($0.element.utf8)) } },
        run: { data in
            let path = String(decoding: data, as: UTF8.self)
            let request: ImageRequestPath
            do { request = try ImageRequestPath(path: path) } catch { return }
            _ = fuzzSigner.verify(signature: request.signature, path: request.signedPath)
            guard let options = try? ProcessingOptions.parse(segments: request.optionSegments, presets: fuzzPresets) else { return }
            // The same path parses to the same options: the canonical form is the cache key.
            let again = try? ProcessingOptions.parse(segments: request.optionSegments, presets: fuzzPresets)
            if again?.canonicalForm != options.canonicalForm {
                FuzzTarget.finding("'\(path)' parses to two different canonical forms")
            }
            _ = try? SourceURLNormalizer.normalize(request.source)
        })

    /// Normalising is idempotent, and a normalised http(s) URL that the downloader accepts
    /// keeps its scheme and host.
    static let sourceURLTarget = FuzzTarget(
        name: "source-url",
        summary: "SourceURLNormalizer (RFC 3986 normalisation) and RequestURLCheck/RedirectTarget on arbitrary URLs and Location values",
        maxLength: 4096, dictionary: "urls.dict", usesImageCorpus: false,
        seeds: { sourceURLSeeds.enumerated().map { ("url-\($0.offset)", Data($0.element.utf8)) } },
        run: { data in
            let text = String(decoding: data, as: UTF8.self)
            if let normalized = try? SourceURLNormalizer.normalize(text) {
                guard let twice = try? SourceURLNormalizer.normalize(normalized), twice == normalized else {
                    FuzzTarget.finding("normalising '\(text)' is not idempotent: '\(normalized)'")
                }
                // No dot segment is left in an http(s) URL's path (the authority may be anything).
                if let schemeEnd = normalized.range(of: "://"),
                    ["http", "https"].contains(normalized[..<schemeEnd.lowerBound].lowercased()) {
                    let afterScheme = normalized[schemeEnd.upperBound...]
                    let path = afterScheme.firstIndex(of: "/").map { afterScheme[$0...] } ?? ""
                    let pathOnly = path.split(separator: "?", maxSplits: 1).first ?? ""
                    if pathOnly.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == ".." || $0 == "." }) {
                        FuzzTarget.finding("dot segment left in '\(normalized)' from '\(text)'")
                    }
                }
            }
            if let url = URL(string: text) {
                // What the check accepts, the HTTP client builds a request for without trapping
                // (building one opens no connection): the invariant F1 broke.
                if RequestURLCheck.problem(with: url) == nil {
                    _ = try? HTTPClient.Request(url: url.absoluteString)
                }
                let headers = HTTPHeaders([("Location", text)])
                if let target = RedirectTarget.followed(status: .found, headers: headers, from: URL(string: "http://127.0.0.1/a/b")!) {
                    _ = RequestURLCheck.problem(with: target)
                }
            }
        })

    /// Nothing that runs or fetches survives, however the markup is broken.
    static let svgSanitizerTarget = FuzzTarget(
        name: "svg-sanitizer",
        summary: "SVGSanitizer: no <script, on… handler, javascript: or external reference in its output",
        maxLength: 65536, dictionary: "svg.dict", usesImageCorpus: false,
        seeds: { svgSeeds.enumerated().map { ("svg-\($0.offset).svg", Data($0.element.utf8)) } },
        run: { data in
            let once = SVGSanitizer.sanitize(Array(data))
            // What the sanitiser writes, it keeps as it is: every value it kept is one it would
            // keep unchanged, so a second pass changes nothing.
            let twice = SVGSanitizer.sanitize(once)
            if twice != once {
                FuzzTarget.finding("sanitising twice changes \(String(decoding: once, as: UTF8.self).debugDescription) into \(String(decoding: twice, as: UTF8.self).debugDescription)")
            }
            // Text never holds a `<` (it stops there; CDATA is escaped, comments dropped), so
            // these can only be tags.
            // Judged on bytes: a combining mark after `<?xml ` would make it another `Character`.
            let declaration = once.starts(with: Array("<?xml ".utf8)) ? (once.firstIndex(of: UInt8(ascii: ">")).map { $0 + 1 } ?? 0) : 0
            let text = String(decoding: once[declaration...], as: UTF8.self).lowercased()
            for forbidden in ["<!--", "<!doctype", "<!entity", "<?"] where text.contains(forbidden) {
                FuzzTarget.finding("sanitised SVG still holds \(forbidden)")
            }
            // Every tag that is left is allowed and keeps only harmless attributes.
            var index = declaration
            while index < once.count, let open = once[index...].firstIndex(of: UInt8(ascii: "<")) {
                if let tag = SVGSanitizer.Tag.parse(once, at: open) {
                    if SVGSanitizer.removedElements.contains(tag.name) { FuzzTarget.finding("sanitised SVG keeps <\(tag.name)>") }
                    for (name, value) in tag.attributes {
                        // The sanitiser would keep it, and any url(…) in it points inside the document.
                        let text = value.map { String(decoding: $0, as: UTF8.self).lowercased() } ?? ""
                        // A link whose value starts with `#` is a fragment (`href="#url("`,
                        // `action="#(…)url("`), not CSS: every attribute the sanitiser reads as a link.
                        let local = String(decoding: name, as: UTF8.self).lowercased().split(separator: ":").last.map(String.init) ?? ""
                        let fragment = SVGSanitizer.Tag.linkAttributes.contains(local) && text.trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("#")
                        let external = !fragment && text.components(separatedBy: "url(").dropFirst().contains { rest in
                            !SVGSanitizer.isLocalReference(String(rest.prefix { $0 != ")" }).trimmingCharacters(in: CharacterSet(charactersIn: " \"'")))
                        }
                        if SVGSanitizer.Tag.keptValue(name: name, value: value) == nil || external {
                            FuzzTarget.finding("sanitised SVG keeps attribute \(String(decoding: name, as: UTF8.self).debugDescription)=\(text.debugDescription) of <\(tag.name)>")
                        }
                    }
                    index = tag.end
                } else {
                    index = open + 1
                }
            }

        })

    static let fuzzSigner = URLSigner(keyPairs: [URLSigner.KeyPair(hexKey: "736563726574", hexSalt: "68656C6C6F")!])

    static let fuzzPresets: PresetTable = {
        var table = PresetTable()
        try? table.define("default=q:80")
        try? table.define("thumb=rs:fill:100:100/g:sm")
        try? table.define("loop=pr:loop")
        return table
    }()

    static let requestPathSeeds = [
        "/insecure/rs:fill:300:400:0/g:sm/plain/http://example.com/images/curiosity.jpg@png",
        "/gOB-w2GQGjvL6c9n1NkOvmzm7sPCIGVr2qacyzV2naY/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1wbGUuY29tL2ltYWdlcy9jdXJpb3NpdHkuanBn.png",
        "/insecure/w:500/h:500/ex:1:ea:5/dpr:2/plain/local:///a%20b.png",
        "/insecure/pr:thumb/bg:ff0000/bl:3/sh:1/q:50/f:webp/plain/https://example.com/x.gif",
        "/insecure/c:100:100:nowe:5:5/t:10:ffffff:1:1/rot:90/ar:0/exp:4102444800/fn:x/att:1/plain/http://h/x",
        "/insecure/raw:1/skp:svg:png/cb:abc/fq:jpeg:80:webp:70/mb:1000/plain/http://h/x.svg",
        "/insecure/s:100:100:1:1/el:1/g:fp:0.5:0.5/exar:1/plain/http://h/%2e%2e/x",
        "/insecure/fl:1:0/pd:10:20::5/wm:0.5:re:10:0.25:0.2/dpr:2/plain/http://h/x.png",
    ]

    static let sourceURLSeeds = [
        "http://example.com/a/../b.png", "HTTPS://EXAMPLE.com:443/%7e/./x?y=%2f#z", "http://[::1]:99999/x",
        "http://user:pass@host:0080/a%2E%2e/b", "http://h\\..\\x", "//evil.example/x", "javascript:alert(1)",
    ]

    static let svgSeeds = [
        ##"<svg xmlns="http://www.w3.org/2000/svg" onload="x()"><script>y()</script><a href="javascript:z"><rect/></a></svg>"##,
        ##"<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "b">]><svg><style>@import url(http://e/x);</style><use href="#a"/></svg>"##,
        ##"<svg><foreignObject><iframe src="http://e"/></foreignObject><![CDATA[<script>]]><image href="data:image/png;base64,AA"/></svg>"##,
    ]
}
