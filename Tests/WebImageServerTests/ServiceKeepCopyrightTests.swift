import Foundation
import Testing
import WebImage
import WebImageServer
import WebImageTesting

/// `keep_copyright` (`kcr`): the source's EXIF `Copyright` and `Artist` written into JPEG
/// results, nothing else of its metadata, over loopback HTTP.
@Suite(.timeLimit(.minutes(2))) struct ServiceKeepCopyrightTests {
    static let copyright = Array("Copyright 2026 Example Photo Ltd".utf8)
    static let artist = Array("Jane Doe".utf8)

    /// A 64×48 JPEG with a big-endian EXIF IFD0 holding Orientation (3), Artist and Copyright.
    static func source() throws -> Data {
        let main = try CodersManager.shared.encode(TestImages.gradient(width: 64, height: 48), format: .jpeg, options: EncodeOptions())
        var tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8]
        func u16(_ value: Int) { tiff += [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
        func u32(_ value: Int) { u16(value >> 16); u16(value & 0xFFFF) }
        let artistOffset = 8 + 2 + 3 * 12 + 4
        let copyrightOffset = artistOffset + artist.count + 1
        u16(3)
        u16(0x0112); u16(3); u32(1); u16(3); u16(0)
        u16(0x013B); u16(2); u32(artist.count + 1); u32(artistOffset)
        u16(0x8298); u16(2); u32(copyright.count + 1); u32(copyrightOffset)
        u32(0)
        tiff += artist + [0] + copyright + [0]
        let body = Array("Exif".utf8) + [0, 0] + tiff
        let segment: [UInt8] = [0xFF, 0xE1, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        return main.prefix(2) + Data(segment) + main.dropFirst(2)
    }

    @Test("Given kcr:1 and a JPEG result, then only the copyright and artist are written; without it, no EXIF")
    func copyrightKept() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/photo.jpg", .ok(try Self.source(), contentType: "image/jpeg"))
        let expected = EXIFCopyright(copyright: Self.copyright, artist: Self.artist)
        #expect(EXIFCopyright.read(from: try Self.source()) == expected)
        for options in ["kcr:1", "keep_copyright:1/sm:1", "kcr:t/sm:0/w:32"] {
            let reply = try await harness.get(harness.plainPath("/photo.jpg", options: options, ext: "jpg"))
            #expect(reply.status == 200, "\(options): \(reply.text)")
            #expect(EXIFCopyright.read(from: reply.body) == expected, "\(options)")
            #expect(EXIFOrientation.orientation(fromJPEG: reply.body) == nil, "\(options): the orientation is not kept")
            #expect(try TestImages.decode(reply.body).width == (options.contains("w:32") ? 32 : 64), "\(options)")
        }
        for options in ["w:40", "kcr:0", "sm:1"] {
            let reply = try await harness.get(harness.plainPath("/photo.jpg", options: options, ext: "jpg"))
            #expect(reply.status == 200)
            #expect(EXIFCopyright.read(from: reply.body) == nil, "\(options)")
        }
        let png = try await harness.get(harness.plainPath("/photo.jpg", options: "kcr:1", ext: "png"))
        #expect(png.status == 200)
        #expect(EXIFCopyright.read(from: png.body) == nil, "only JPEG results carry EXIF")
    }

    @Test("Given the copyright block written, then it reads back, short values inline; a source without one adds nothing")
    func roundTrip() throws {
        let short = EXIFCopyright(copyright: Array("(c)".utf8), artist: Array("Al".utf8))
        let jpeg = try CodersManager.shared.encode(TestImages.gradient(width: 8, height: 8), format: .jpeg, options: EncodeOptions())
        let written = short.inserted(intoJPEG: jpeg)
        #expect(EXIFCopyright.read(from: written) == short)
        #expect(try TestImages.decode(written).width == 8)
        #expect(EXIFCopyright.read(from: jpeg) == nil)
        let file = try Self.source()
        for length in 0..<140 { _ = EXIFCopyright.read(from: file.prefix(length)) }
    }

    @Test("Given bad keep_copyright arguments, then 400 names the option; it changes the ETag only when on")
    func badArgumentsAndCanonicalForm() async throws {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 20, height: 10), contentType: "image/png"))
        for (options, name) in [("kcr:maybe", "kcr"), ("keep_copyright:1:2", "keep_copyright")] {
            let reply = try await harness.get(harness.plainPath("/src.png", options: options, ext: "png"))
            #expect(reply.status == 400, "\(options): \(reply.status)")
            #expect(reply.text.contains("bad option \(name):"), "\(options): \(reply.text)")
        }
        #expect(harness.origin.requestCount("/src.png") == 0)
        let base = try ProcessingOptions.parse(segments: ["w:100"], presets: PresetTable()).canonicalForm
        #expect(try ProcessingOptions.parse(segments: ["w:100", "kcr:0"], presets: PresetTable()).canonicalForm == base)
        #expect(try ProcessingOptions.parse(segments: ["w:100", "kcr:1"], presets: PresetTable()).canonicalForm != base)
    }
}
