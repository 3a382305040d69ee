import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// Corpus `.jpg` inputs that must fail cleanly.
private let mustFailJPEGPaths: [String] = Corpus.entries { entry in
    entry.mustFail && (entry.path.hasSuffix(".jpg") || entry.format.uppercased() == "JPEG")
}.map(\.path)

@Suite("JPEG failures")
struct JPEGFailureTests {
    let coder = JPEGCoder()

    @Test("Given a must-fail .jpg, when decoded, then a WebImageError is thrown", .enabled(if: Corpus.isAvailable), arguments: mustFailJPEGPaths)
    func mustFailThrows(path: String) throws {
        let data = try Corpus.data(path)
        #expect(throws: WebImageError.self) { try coder.decode(data, options: .default) }
        #expect(throws: WebImageError.self) { try coder.readMetadata(data) }
        #expect(throws: WebImageError.self) { try CodersManager(coders: [JPEGCoder()]).decode(data, options: .default) }
    }

    @Test("Given the HTML page named .jpg, when sniffed, then the JPEG coder declines it", .enabled(if: Corpus.isAvailable))
    func declinesHTML() throws {
        #expect(!coder.canDecode(try Corpus.data("malformed/generated/html_404_named.jpg")))
        #expect(!coder.canDecode(Data()))
    }

    @Test("Given a truncated JPEG, when decoded, then badImageData is thrown, not a partial image", .enabled(if: Corpus.isAvailable))
    func truncatedIsBadImageData() throws {
        let data = try Corpus.data("malformed/generated/trunc_half_testorig.jpg")
        #expect(coder.canDecode(data))
        do {
            _ = try coder.decode(data, options: .default)
            Issue.record("a truncated JPEG decoded as a success")
        } catch WebImageError.badImageData(let reason) {
            #expect(reason.contains("truncated"), "\(reason)")
        }
        // The header is complete, so metadata is still readable.
        #expect(try coder.readMetadata(data).pixelSize == PixelSize(width: 227, height: 149))
    }

    @Test("Given every truncation of a small JPEG, when decoded, then it throws WebImageError or decodes fully", .enabled(if: Corpus.isAvailable))
    func everyTruncationFailsCleanly() throws {
        let data = try Corpus.data("generated-valid/progressive_64x48.jpg")
        for length in 0..<data.count - 2 {
            #expect(throws: WebImageError.self, "prefix of \(length) bytes") {
                try coder.decode(data.prefix(length), options: .default)
            }
        }
    }

    @Test("Given a 12-bit JPEG, when decoded, then unsupportedFormat(.jpeg) is thrown", .enabled(if: Corpus.isAvailable))
    func twelveBitIsUnsupported() throws {
        let data = try Corpus.data("jpeg-libjpeg-turbo/monkey12.jpg")
        #expect(coder.canDecode(data))
        for attempt in [{ _ = try coder.decode(data, options: .default) }, { _ = try coder.readMetadata(data) }] {
            do {
                try attempt()
                Issue.record("12-bit JPEG did not fail")
            } catch WebImageError.unsupportedFormat(let format, let reason) {
                #expect(format == .jpeg)
                #expect(reason.contains("12-bit"))
            }
        }
    }

    @Test("Given garbage after EOI, when decoded, then the image decodes", .enabled(if: Corpus.isAvailable))
    func trailingGarbageDecodes() throws {
        let image = try coder.decode(try Corpus.data("malformed/generated/jpeg_trailing_garbage.jpg"), options: .default)
        #expect(image.pixelSize == PixelSize(width: 227, height: 149))
        let clean = try coder.decode(try Corpus.data("jpeg-libjpeg-turbo/testorig.jpg"), options: .default)
        #expect(PixelDifference.between(image.pixels, clean.pixels)?.maxChannelDifference == 0)
    }

    @Test("Given PNG bytes named .jpg, when sniffed, then the JPEG coder declines them", .enabled(if: Corpus.isAvailable))
    func pngNamedJPGIsNotJPEG() throws {
        let data = try Corpus.data("malformed/generated/valid_png_named.jpg")
        #expect(!coder.canDecode(data))
        #expect(throws: WebImageError.self) { try coder.decode(data, options: .default) }
    }

    @Test("Given a header declaring more pixels than the limit, when decoded, then imageTooLarge is thrown before allocating", .enabled(if: Corpus.isAvailable))
    func limitsCheckedFromHeader() throws {
        var limits = DecodeLimits()
        limits.maxPixelCount = 100 * 100
        let data = try Corpus.data("sdwebimage/TestImageLarge.jpg")
        do {
            _ = try coder.decode(data, options: DecodeOptions(limits: limits))
            Issue.record("the limit was not enforced")
        } catch WebImageError.imageTooLarge {
        }
    }

    @Test("Given ~200 deterministic byte mutations of a valid JPEG, when decoded, then each decodes or throws WebImageError", .enabled(if: Corpus.isAvailable), .timeLimit(.minutes(1)))
    func mutationsNeverCrash() throws {
        let original = try Corpus.data("jpeg-misc/progressive/cat.jpg")
        var generator = SeededRandom(seed: 0x4A50_4547)
        var decoded = 0
        var failed = 0
        for round in 0..<200 {
            var bytes = [UInt8](original)
            let mutations = 1 + Int(generator.next() % 8)
            for _ in 0..<mutations {
                // Favour the header, where the structure lives, but hit the scans too.
                let range = round % 2 == 0 ? min(bytes.count, 700) : bytes.count
                let index = 2 + Int(generator.next() % UInt64(range - 2))
                bytes[index] = UInt8(truncatingIfNeeded: generator.next())
            }
            if round % 10 == 9 { bytes.removeLast(Int(generator.next() % UInt64(bytes.count / 2))) }
            do {
                let image = try coder.decode(Data(bytes), options: .default)
                #expect(image.width > 0 && image.height > 0)
                decoded += 1
            } catch is WebImageError {
                failed += 1
            }
            _ = try? coder.readMetadata(Data(bytes))
            _ = try? coder.decode(Data(bytes), options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 37, height: 21)))
        }
        #expect(decoded + failed == 200)
        #expect(failed > 0)
    }
}

