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
