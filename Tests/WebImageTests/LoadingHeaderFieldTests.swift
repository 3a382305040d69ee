import Foundation
import Testing
import WebImage

@Suite("HTTP header fields: case-insensitive names, trimmed values")
struct LoadingHeaderFieldTests {
    static func response(_ fields: [(String, String)]) -> ImageResponseInfo {
        ImageResponseInfo(statusCode: 200, url: nil, headers: fields.map { HTTPHeaderField(name: $0.0, value: $0.1) })
    }

    @Test("Given mixed-case names, then lookups ignore ASCII case and return the first match")
    func names() {
        let info = Self.response([("content-TYPE", "image/png"), ("Content-Type", "image/gif"), ("X-Ünïcode", "1")])
        #expect(info.value(forHeader: "Content-Type") == "image/png")
        #expect(info.value(forHeader: "CONTENT-type") == "image/png")
        #expect(info.value(forHeader: "Content-Typ") == nil)
        #expect(info.value(forHeader: "Content-Types") == nil)
        #expect(info.value(forHeader: "x-Ünïcode") == "1")
        #expect(info.value(forHeader: "") == nil)
    }

    @Test("Given Content-Length with optional whitespace, then it parses; garbage and negative signs stay rejected")
    func contentLength() {
        #expect(Self.response([("Content-Length", " \t42 ")]).expectedContentLength == 42)
        #expect(Self.response([("content-length", "0")]).expectedContentLength == 0)
        #expect(Self.response([("Content-Length", "4 2")]).expectedContentLength == nil)
        #expect(Self.response([("Content-Length", "")]).expectedContentLength == nil)
        #expect(Self.response([("Content-Length", "  ")]).expectedContentLength == nil)
        #expect(Self.response([("Content-Length", "99999999999999999999")]).expectedContentLength == nil)
        #expect(Self.response([]).expectedContentLength == nil)
    }

    @Test("Given a Content-Type with parameters and case, then mimeType is the bare lowercased type")
    func mimeType() {
        #expect(Self.response([("Content-Type", "Image/PNG ; charset=binary")]).mimeType == "image/png")
        #expect(Self.response([("Content-Type", "\timage/webp")]).mimeType == "image/webp")
        #expect(Self.response([("Content-Type", "")]).mimeType == "")
        #expect(Self.response([("Content-Type", ";q=1")]).mimeType == "")
        #expect(Self.response([]).mimeType == nil)
    }

    @Test("Given a request, then setValue replaces fields of any case and nil removes them")
    func requestHeaders() throws {
        var request = ImageDownloadRequest(url: try #require(URL(string: "http://127.0.0.1/a")), headers: [
            HTTPHeaderField(name: "accept", value: "a"), HTTPHeaderField(name: "ACCEPT", value: "b"),
        ])
        request.setValue("image/*", forHeader: "Accept")
        #expect(request.headers == [HTTPHeaderField(name: "Accept", value: "image/*")])
        #expect(request.value(forHeader: "aCCept") == "image/*")
        request.setValue(nil, forHeader: "accept")
        #expect(request.headers.isEmpty)
    }
}
