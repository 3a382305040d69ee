import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("PNG corpus decoding")
struct PNGCorpusDecodeTests {
    let coder = PNGCoder()

    @Test(
        "Given a corpus PNG marked decodes, when decoded, then size and frame count match the manifest",
        .enabled(if: Corpus.isAvailable), arguments: PNGCorpus.mustDecode.map(\.path))
    func decodesToManifestSize(path: String) throws {
        let entry = try #require(Corpus.manifest.first { $0.path == path })
        let data = try Corpus.data(path)
        let image = try coder.decode(data, options: DecodeOptions(applyOrientation: false))
        if let width = entry.width, let height = entry.height {
            #expect(image.width == width && image.height == height)
        }
        if let frames = entry.frames {
            let expected = PNGCorpus.hasHiddenDefaultImage(data) ? frames - 1 : frames
            #expect(image.frames.count == expected)
        }
        #expect(image.format == .png)
        #expect(image.frames.allSatisfy { $0.pixels.width == image.width && $0.pixels.height == image.height })
    }

    @Test(
        "Given a corpus PNG marked MUST FAIL, when decoded, then a WebImageError is thrown",
        .enabled(if: Corpus.isAvailable), arguments: PNGCorpus.mustFail.map(\.path))
    func mustFail(path: String) throws {
        let data = try Corpus.data(path)
        #expect(throws: WebImageError.self) { try coder.decode(data, options: .default) }
    }

    @Test("Given a PNG header declaring 100000x100000, when decoded, then imageTooLarge is thrown", .enabled(if: Corpus.isAvailable))
    func bombIsRejected() throws {
        let data = try Corpus.data("malformed/generated/png_bomb_header_100000x100000_rgba.png")
        let error = try #require(throws: WebImageError.self) { try coder.decode(data, options: .default) }
        #expect(error.code == "imageTooLarge")
        #expect(throws: WebImageError.self) { try coder.makeAnimatedSource(data, options: .default) }
        #expect(throws: WebImageError.self) {
            try coder.makeIncrementalDecoder(options: .default).update(data, isComplete: true)
        }
        // Metadata is header-only, so it is allowed to report the declared size.
        #expect(try coder.readMetadata(data).pixelSize == PixelSize(width: 100_000, height: 100_000))
    }

    @Test(
        "Given the issue#230 headers with impossible dimensions, when decoded, then a WebImageError is thrown",
        .enabled(if: Corpus.isAvailable),
        arguments: ["png-regressions/bugfixes/x_issue#230.0.png", "png-regressions/bugfixes/x_issue#230.1.png"])
    func impossibleDimensionsFail(path: String) throws {
        let data = try Corpus.data(path)
        #expect(throws: WebImageError.self) { try coder.decode(data, options: .default) }
        #expect(throws: WebImageError.self) { try coder.readMetadata(data) }
    }

    @Test(
        "Given PNGs whose ancillary chunks have bad CRCs, when decoded, then they decode (lenient like libpng)",
        .enabled(if: Corpus.isAvailable),
        arguments: ["png-regressions/bugfixes/cicp_pq.png", "png-regressions/bugfixes/issue#430.png"])
    func badAncillaryCRCIsIgnored(path: String) throws {
        let image = try coder.decode(try Corpus.data(path), options: .default)
        #expect(image.width > 0)
    }

    @Test(
        "Given a PNG with four IDATs, when any one IDAT's CRC is corrupted, then decoding fails; an ancillary one is ignored",
        .enabled(if: Corpus.isAvailable))
    func corruptedCRCs() throws {
        let original = [UInt8](try Corpus.data("pngsuite/oi4n0g16.png"))
        // Chunks: IHDR(13) gAMA(4) IDAT(31) IDAT(31) IDAT(2) IDAT(30) IEND(0); CRC ends per chunk.
        var offset = 8
        var crcOffsets: [(type: String, at: Int)] = []
        while offset + 12 <= original.count {
            let length = original[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: original[(offset + 4)..<(offset + 8)], as: UTF8.self)
            crcOffsets.append((type, offset + 8 + length))
            offset += 12 + length
        }
        #expect(crcOffsets.filter { $0.type == "IDAT" }.count == 4)
        for (type, at) in crcOffsets where type == "IDAT" || type == "gAMA" {
            var bytes = original
            bytes[at] ^= 0x5A
            if type == "IDAT" {
                #expect(throws: WebImageError.self, "IDAT CRC at \(at)") {
                    try coder.decode(Data(bytes), options: .default)
                }
            } else {
                #expect(try coder.decode(Data(bytes), options: .default).width == 32)
            }
        }
    }

    @Test("Given a 137 kB iTXt chunk, then it decodes by default and is refused under a 1 kB chunk limit", .enabled(if: Corpus.isAvailable))
    func chunkLimit() throws {
        let data = try Corpus.data("png-regressions/bugfixes/large-text-chunks-issue#337.png")
        #expect(try coder.decode(data, options: .default).width == 32)
        var limits = DecodeLimits()
        limits.maxChunkBytes = 1_000
        let error = try #require(throws: WebImageError.self) {
            try coder.decode(data, options: DecodeOptions(limits: limits))
        }
        #expect(error.code == "imageTooLarge")
        // Image data is not a cached chunk: a 78 kB IDAT decodes under the same limit.
        let big = try Corpus.data("png-misc/bugfixes/debug_triangle_corners_widescreen.png")
        #expect(try coder.decode(big, options: DecodeOptions(limits: limits)).width == 2000)
    }

    @Test("Given a complete image whose IEND is missing, when decoded, then it decodes", .enabled(if: Corpus.isAvailable))
    func missingIENDIsTolerated() throws {
        let data = try Corpus.data("pngsuite/basn0g01.png")
        let full = try coder.decode(data, options: .default)
        let cut = try coder.decode(data.prefix(data.count - 12), options: .default)
        #expect(cut.pixels.bytes == full.pixels.bytes)
    }

    @Test("Given a small pixel limit, when a PNG exceeds it, then imageTooLarge is thrown", .enabled(if: Corpus.isAvailable))
    func customLimit() throws {
        var limits = DecodeLimits()
        limits.maxPixelCount = 32 * 32 - 1
        let data = try Corpus.data("pngsuite/basn6a08.png")
        let error = try #require(throws: WebImageError.self) {
            try coder.decode(data, options: DecodeOptions(limits: limits))
        }
        #expect(error.code == "imageTooLarge")
    }

    @Test("Given an APNG with more frames than the limit, when decoded, then imageTooLarge is thrown", .enabled(if: Corpus.isAvailable))
    func frameLimit() throws {
        var limits = DecodeLimits()
        limits.maxFrameCount = 19
        let data = try Corpus.data("apng/ball.png")
        let error = try #require(throws: WebImageError.self) {
            try coder.decode(data, options: DecodeOptions(limits: limits))
        }
        #expect(error.code == "imageTooLarge")
        // The first frame alone is within the limit.
        let first = try coder.decode(data, options: DecodeOptions(firstFrameOnly: true, limits: limits))
        #expect(first.frames.count == 1)
    }

    @Test("Given a truncated PNG, when decoded, then it fails cleanly or gives a full-size image", .enabled(if: Corpus.isAvailable))
    func truncated() throws {
        let data = try Corpus.data("malformed/generated/trunc_32b_basn6a08.png")
        do {
            let image = try coder.decode(data, options: .default)
            #expect(image.width == 32 && image.height == 32)
        } catch {
            #expect(error is WebImageError)
        }
    }

    @Test("Given PNG bytes under a .jpg name, then the coder claims and decodes them", .enabled(if: Corpus.isAvailable))
    func sniffsMagic() throws {
        let data = try Corpus.data("malformed/generated/valid_png_named.jpg")
        #expect(coder.canDecode(data))
        #expect(try coder.decode(data, options: .default).pixelSize == PixelSize(width: 32, height: 32))
        #expect(!coder.canDecode(Data("GIF89a".utf8)))
    }
}
