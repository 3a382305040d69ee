import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// SVG documents that try to make the renderer load things or blow up: nothing is loaded, and
/// each decode ends (an image or a typed error).
@Suite("SVG hostile documents", .timeLimit(.minutes(2)))
struct SVGHostileTests {
    /// A red 8×8 PNG in a temporary file: drawn, it would show.
    static func redPNG() throws -> URL {
        let red = PixelBuffer(width: 8, height: 8, bytes: Array(repeating: [255, 0, 0, 255], count: 64).flatMap { $0 })
        let png = try CodersManager.shared.encode(Image(pixels: red), format: .png, options: .default)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-svg-red-\(UUID().uuidString).png")
        try png.write(to: url)
        return url
    }

    static func expectNothingDrawn(_ svg: String, _ what: String) {
        do {
            let image = try SVGCoder().decode(Data(svg.utf8), options: .default)
            #expect(image.pixels.bytes.allSatisfy { $0 == 0 }, "\(what): something was drawn")
        } catch {
            #expect(error is WebImageError, "\(what): \(error)")
        }
    }

    @Test("Given images and includes referencing file: and http: URLs, then nothing is read and the server gets no connection")
    func externalReferences() async throws {
        let server = HTTPTestServer()
        try await server.start()
        let redFile = try Self.redPNG()
        defer { try? FileManager.default.removeItem(at: redFile) }
        let png = try Data(contentsOf: redFile)
        server.route("/red.png", .ok(png, contentType: "image/png"))
        server.route("/style.css", .ok(Data("rect { fill: red }".utf8), contentType: "text/css"))
        let http = server.url("/red.png").absoluteString
        let documents = [
            ("file image", #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="8" height="8"><image width="8" height="8" xlink:href="\#(redFile.absoluteString)"/></svg>"#),
            ("relative image", #"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><image width="8" height="8" href="\#(redFile.lastPathComponent)"/></svg>"#),
            ("http image", #"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><image width="8" height="8" href="\#(http)"/></svg>"#),
            ("http stylesheet", #"<?xml-stylesheet href="\#(server.url("/style.css").absoluteString)" type="text/css"?><svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="none"/></svg>"#),
            ("xinclude", #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xi="http://www.w3.org/2001/XInclude" width="8" height="8"><text y="8"><xi:include href="file:///etc/passwd" parse="text"/></text></svg>"#),
            ("use of external file", #"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><use href="\#(http)#a"/><use href="file:///etc/passwd#a"/></svg>"#),
        ]
        for (what, svg) in documents { Self.expectNothingDrawn(svg, what) }
        #expect(server.connectionCount == 0)
        #expect(server.totalRequestCount == 0)
        await server.shutdown()
    }

    @Test("Given data: images written plainly, in feImage, through character references or entities, then none is decoded and the rest is drawn")
    func dataURLs() throws {
        let file = try Self.redPNG()
        defer { try? FileManager.default.removeItem(at: file) }
        let red = try Data(contentsOf: file)
        let url = "data:image/png;base64," + red.base64EncodedString()
        let spelled = "&#100;" + url.dropFirst()
        let documents = [
            ("plain", #"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><image width="8" height="8" href="\#(url)"/></svg>"#),
            ("upper case, spaces", #"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><image width="8" height="8" href="  DATA:\#(url.dropFirst(5))"/></svg>"#),
            ("feImage", #"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><filter id="f"><feImage href="\#(url)"/></filter><rect width="8" height="8" fill="none" filter="url(#f)"/></svg>"#),
            ("character reference", #"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><image width="8" height="8" href="\#(spelled)"/></svg>"#),
            ("entity", #"<!DOCTYPE svg [<!ENTITY u "\#(url)">]><svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><image width="8" height="8" href="&u;"/></svg>"#),
            ("split entities", #"<!DOCTYPE svg [<!ENTITY a "da"><!ENTITY b "ta:\#(url.dropFirst(5))">]><svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><image width="8" height="8" href="&a;&b;"/></svg>"#),
            ("nested entities", #"<!DOCTYPE svg [<!ENTITY a "d"><!ENTITY b "&a;ata:\#(url.dropFirst(5))">]><svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><image width="8" height="8" href="&b;"/></svg>"#),
        ]
        for (what, svg) in documents { Self.expectNothingDrawn(svg, what) }
        // The rest of a document with a data: image is still drawn.
        let mixed = ##"<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="4" height="8" fill="#00f"/><image x="4" width="4" height="8" href="\##(url)"/><text>data: 1</text></svg>"##
        let image = try SVGCoder().decode(Data(mixed.utf8), options: .default)
        #expect(image.pixels.pixel(x: 1, y: 4) == RGBA(r: 0, g: 0, b: 255))
        #expect(image.pixels.pixel(x: 6, y: 4).a == 0)
    }

    @Test("Given a billion-laughs entity bomb, then the decode ends with a typed error or a small image")
    func entityBomb() throws {
        var entities = #"<!ENTITY lol "lollollollollollollollollollol">"#
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            entities += "<!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">"
        }
        let svg = """
            <?xml version="1.0"?>
            <!DOCTYPE svg [\(entities)]>
            <svg xmlns="http://www.w3.org/2000/svg" width="16" height="16"><text y="10">&lol9;</text></svg>
            """
        do {
            let image = try SVGCoder().decode(Data(svg.utf8), options: .default)
            #expect(image.pixelSize == PixelSize(width: 16, height: 16))
        } catch {
            #expect(error is WebImageError, "\(error)")
        }
    }

    @Test("Given an oversized document, then imageTooLarge without parsing")
    func documentSize() throws {
        let padding = String(repeating: " ", count: SVGCoder.maxDocumentBytes)
        let svg = #"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4">"# + padding + "</svg>"
        do {
            _ = try SVGCoder().decode(Data(svg.utf8), options: .default)
            Issue.record("an oversized document was drawn")
        } catch WebImageError.imageTooLarge {}
    }
}
