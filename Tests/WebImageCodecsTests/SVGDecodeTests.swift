import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// SVG documents drawn by ``SVGCoder`` (librsvg), compared with librsvg's own `rsvg-convert`.
@Suite("SVG decoding")
struct SVGDecodeTests {
    /// Sharp-edged shapes on a transparent background, 120×60 user units.
    static let shapes = """
        <svg xmlns="http://www.w3.org/2000/svg" width="120" height="60" viewBox="0 0 120 60">
          <rect x="10" y="10" width="40" height="40" fill="#e02020"/>
          <circle cx="85" cy="30" r="20" fill="#2040e0" stroke="#000" stroke-width="3"/>
          <path d="M0 58 L120 58" stroke="#20a020" stroke-width="2"/>
        </svg>
        """

    /// `rsvg-convert -w W -h H` of `svg`, read back.
    static func reference(_ svg: String, size: PixelSize) throws -> PixelBuffer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-svg-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.svg")
        let output = directory.appendingPathComponent("out.png")
        try Data(svg.utf8).write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/rsvg-convert")
        process.arguments = ["-w", "\(size.width)", "-h", "\(size.height)", "-o", output.path, input.path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "rsvg-convert failed (make setup installs librsvg2-bin)")
        return try ReferencePNG.read(output)
    }

    @Test(
        "Given thumbnail sizes smaller and larger than the document, then it is drawn straight at that size like rsvg-convert",
        arguments: [PixelSize(width: 30, height: 30), PixelSize(width: 90, height: 200), PixelSize(width: 480, height: 480)])
    func sizes(box: PixelSize) throws {
        let data = Data(Self.shapes.utf8)
        let image = try SVGCoder().decode(data, options: DecodeOptions(thumbnailPixelSize: box))
        let expectedSize = PixelSize(width: min(box.width, box.height * 2), height: min(box.width, box.height * 2) / 2)
        try #require(image.pixelSize == expectedSize)
        #expect(image.format == .svg)
        let reference = try Self.reference(Self.shapes, size: expectedSize)
        let difference = try #require(PixelDifference.between(image.pixels, reference))
        #expect(difference.psnr >= 40, "\(difference)")
        // Sharp: the square's inside is the exact fill colour, its outside transparent.
        let scale = Double(expectedSize.width) / 120
        let inside = image.pixels.pixel(x: Int(30 * scale), y: Int(30 * scale))
        #expect(inside == RGBA(r: 0xE0, g: 0x20, b: 0x20))
        #expect(image.pixels.pixel(x: Int(5 * scale), y: Int(30 * scale)).a == 0)
    }

    @Test("Given no thumbnail size, then the intrinsic size; a viewBox without width and height gives the viewBox size")
    func intrinsicSize() throws {
        let image = try SVGCoder().decode(Data(Self.shapes.utf8), options: .default)
        #expect(image.pixelSize == PixelSize(width: 120, height: 60))
        let viewBoxOnly = Data(##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30 20"><rect width="30" height="20" fill="#fff"/></svg>"##.utf8)
        let drawn = try CodersManager.shared.decode(viewBoxOnly, options: .default)
        try #require(drawn.pixelSize == PixelSize(width: 30, height: 20))
        #expect(drawn.pixels.pixel(x: 29, y: 19) == RGBA(r: 255, g: 255, b: 255))
        #expect(try CodersManager.shared.readMetadata(viewBoxOnly).pixelSize == PixelSize(width: 30, height: 20))
        let stretched = try SVGCoder().decode(
            Data(Self.shapes.utf8), options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 40, height: 40), preserveAspectRatio: false))
        #expect(stretched.pixelSize == PixelSize(width: 40, height: 40))
    }

    @Test("Given broken or sizeless documents and limits, then typed errors")
    func failures() throws {
        #expect(throws: WebImageError.self) { try SVGCoder().decode(Data("<svg xmlns='http://www.w3.org/2000/svg'><rect".utf8), options: .default) }
        #expect(throws: WebImageError.self) { try SVGCoder().decode(Data("<svg xmlns='http://www.w3.org/2000/svg'/>".utf8), options: .default) }
        var limits = DecodeLimits()
        limits.maxPixelCount = 1000
        #expect(throws: WebImageError.self) { try SVGCoder().decode(Data(Self.shapes.utf8), options: DecodeOptions(limits: limits)) }
        let huge = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"/>"#.utf8)
        #expect(throws: WebImageError.self) { try SVGCoder().decode(huge, options: .default) }
    }

    @Test("Given the corpus SVG, then it decodes", .enabled(if: Corpus.isAvailable))
    func corpus() throws {
        let image = try CodersManager.shared.decode(try Corpus.data("sdwebimage/TestImage.svg"), options: .default)
        #expect(image.format == .svg && image.width > 0)
    }
}
