import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// JPEG files carrying an EXIF thumbnail, made in the test from the library's own encoder.
enum EXIFThumbnailFixture {
    /// A solid `width`×`height` JPEG of one colour.
    static func solidJPEG(width: Int, height: Int, r: UInt8, g: UInt8, b: UInt8) throws -> Data {
        let pixels = PixelBuffer.make(width: width, height: height) { out in
            for i in stride(from: 0, to: out.count, by: 4) { out[i] = r; out[i + 1] = g; out[i + 2] = b; out[i + 3] = 255 }
        }
        return try CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: false), format: .jpeg, options: EncodeOptions(quality: 0.95))
    }

    /// `main` with an APP1 `Exif` segment after its start-of-image marker: IFD0 with the
    /// `orientation` tag when given, IFD1 pointing at `thumbnail` (little-endian TIFF).
    static func jpeg(main: Data, thumbnail: Data, orientation: Int? = nil) -> Data {
        var tiff: [UInt8] = [0x49, 0x49, 42, 0]
        func u16(_ value: Int) { tiff += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func u32(_ value: Int) { u16(value & 0xFFFF); u16(value >> 16) }
        u32(8)
        let ifd0Entries = orientation == nil ? 0 : 1
        let ifd1 = 8 + 2 + 12 * ifd0Entries + 4
        u16(ifd0Entries)
        if let orientation { u16(0x0112); u16(3); u32(1); u16(orientation); u16(0) }
        u32(ifd1)
        u16(2)
        u16(0x0201); u16(4); u32(1); u32(ifd1 + 2 + 24 + 4)
        u16(0x0202); u16(4); u32(1); u32(thumbnail.count)
        u32(0)
        tiff += thumbnail
        let body = Array("Exif".utf8) + [0, 0] + tiff
        let segment: [UInt8] = [0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        return main.prefix(2) + Data(segment) + main.dropFirst(2)
    }
}

/// `enforce_thumbnail` (`eth`): the JPEG's EXIF thumbnail processed instead of the main image,
/// over loopback HTTP.
@Suite(.timeLimit(.minutes(2))) struct ServiceEnforceThumbnailTests {
    /// A 400×300 gradient JPEG whose EXIF thumbnail is a 160×120 solid blue JPEG.
    private func source(orientation: Int? = nil) throws -> Data {
        let main = try CodersManager.shared.encode(TestImages.gradient(width: 400, height: 300), format: .jpeg, options: EncodeOptions())
        let thumbnail = try EXIFThumbnailFixture.solidJPEG(width: 160, height: 120, r: 0, g: 0, b: 255)
        return EXIFThumbnailFixture.jpeg(main: main, thumbnail: thumbnail, orientation: orientation)
    }

    @Test("Given eth:1 on a JPEG with an EXIF thumbnail, then the thumbnail is the source, decoded once")
    func thumbnailUsed() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/photo.jpg", .ok(try source(), contentType: "image/jpeg"))
        for (options, width, height, isThumbnail) in [
            ("eth:1", 160, 120, true), ("enforce_thumbnail:true/w:80", 80, 60, true),
            ("eth:0", 400, 300, false), ("w:400", 400, 300, false),
        ] {
            let before = harness.service.decodeCount
            let reply = try await harness.get(harness.plainPath("/photo.jpg", options: options, ext: "png"))
            #expect(reply.status == 200, "\(options): \(reply.text)")
            guard reply.status == 200 else { continue }
            #expect(harness.service.decodeCount == before + 1, "\(options)")
            let image = try TestImages.decode(reply.body)
            #expect(image.pixelSize == PixelSize(width: width, height: height), "\(options)")
            let pixel = image.pixels.pixel(x: width / 2, y: height / 2)
            #expect((pixel.b > 230 && pixel.r < 20) == isThumbnail, "\(options): \(pixel)")
        }
    }

    @Test("Given eth:1 on a rotated photo, then the thumbnail is turned by the photo's EXIF orientation unless ar:0")
    func thumbnailOriented() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/photo.jpg", .ok(try source(orientation: 6), contentType: "image/jpeg"))
        for (options, width, height) in [("eth:1", 120, 160), ("eth:1/ar:0", 160, 120), ("w:150", 150, 200)] {
            let reply = try await harness.get(harness.plainPath("/photo.jpg", options: options, ext: "png"))
            #expect(reply.status == 200, "\(options): \(reply.text)")
            guard reply.status == 200 else { continue }
            #expect(try TestImages.decode(reply.body).pixelSize == PixelSize(width: width, height: height), "\(options)")
        }
    }

    @Test("Given eth:1 on sources without an embedded thumbnail, then the main image is used")
    func noThumbnail() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/plain.jpg", .ok(try EXIFThumbnailFixture.solidJPEG(width: 64, height: 32, r: 255, g: 0, b: 0), contentType: "image/jpeg"))
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 50, height: 40), contentType: "image/png"))
        for (path, width, height) in [("/plain.jpg", 64, 32), ("/src.png", 50, 40)] {
            let reply = try await harness.get(harness.plainPath(path, options: "eth:1", ext: "png"))
            #expect(reply.status == 200, "\(path): \(reply.text)")
            #expect(try TestImages.decode(reply.body).pixelSize == PixelSize(width: width, height: height), "\(path)")
        }
    }

    @Test("Given a damaged EXIF block, then no thumbnail is found and nothing crashes")
    func damagedEXIF() throws {
        let file = try source()
        #expect(EXIFThumbnail.jpeg(in: file)?.prefix(2) == Data([0xFF, 0xD8]))
        for length in stride(from: 0, to: 120, by: 1) { _ = EXIFThumbnail.jpeg(in: file.prefix(length)) }
        var wrongOffset = file
        // IFD1's thumbnail offset pointed past the block: the TIFF block starts after SOI, the
        // APP1 marker and length and "Exif\0\0" (2 + 4 + 6); IFD1 is at 14 in it, its first
        // entry's value at 14 + 2 + 8.
        let valueIndex = wrongOffset.startIndex + 2 + 4 + 6 + 14 + 2 + 8
        wrongOffset.replaceSubrange(valueIndex..<(valueIndex + 4), with: [0xFF, 0xFF, 0xFF, 0x7F])
        #expect(EXIFThumbnail.jpeg(in: wrongOffset) == nil)
    }

    @Test("Given bad enforce_thumbnail arguments, then 400 names the option; it changes the ETag only when on")
    func badArgumentsAndCanonicalForm() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 20, height: 10), contentType: "image/png"))
        for (options, name) in [("eth:maybe", "eth"), ("enforce_thumbnail:1:2", "enforce_thumbnail")] {
            let reply = try await harness.get(harness.plainPath("/src.png", options: options, ext: "png"))
            #expect(reply.status == 400, "\(options): \(reply.status)")
            #expect(reply.text.contains("bad option \(name):"), "\(options): \(reply.text)")
        }
        #expect(harness.origin.requestCount("/src.png") == 0)
        let base = try ProcessingOptions.parse(segments: ["w:100"], presets: PresetTable()).canonicalForm
        #expect(try ProcessingOptions.parse(segments: ["w:100", "eth:0"], presets: PresetTable()).canonicalForm == base)
        #expect(try ProcessingOptions.parse(segments: ["w:100", "eth:1"], presets: PresetTable()).canonicalForm != base)
    }
}
