import Foundation
import Testing
import WebImageCore
import WebImageTesting

/// Manifest entries whose header the reader must understand: every decodable raster file.
private let headerFormats: Set<String> = ["JPEG", "PNG", "GIF", "WEBP", "AVIF", "HEIF"]
private let decodableEntries = Corpus.entries { entry in
    entry.mustDecode && headerFormats.contains(entry.format) && entry.width != nil
}
private let animationEntries = Corpus.entries { entry in
    entry.mustDecode && headerFormats.contains(entry.format)
        && (entry.animated == "no" || entry.animated.hasPrefix("yes"))
}

/// GIFs whose frames stick out of the logical screen: Pillow grows its canvas to fit them, the
/// header (and browsers) keep the declared screen size.
private let pillowGrowsCanvas: Set = ["gif/anim/oob.gif", "gif/simple/issue_1455_oversized.gif"]

@Suite("Header reader (I-4)")
struct HeaderReaderTests {
    @Test(
        "Given a decodable corpus file, when its header is read, then the size equals the manifest",
        .enabled(if: Corpus.isAvailable), arguments: decodableEntries)
    func corpusDimensions(entry: CorpusEntry) throws {
        let metadata = try ImageHeaderReader.read(Corpus.data(entry.path))
        let manifestSize = PixelSize(width: entry.width ?? 0, height: entry.height ?? 0)
        if pillowGrowsCanvas.contains(entry.path) {
            #expect(metadata.pixelSize.width < manifestSize.width && metadata.pixelSize.height < manifestSize.height)
        } else {
            // The manifest gives the stored size (EXIF orientation not applied), as pixelSize does.
            #expect(metadata.pixelSize == manifestSize)
        }
        #expect(metadata.format.rawValue == entry.format.lowercased() || entry.format == "HEIF")
        if let frames = entry.frames, entry.format != "HEIF", entry.format != "AVIF" {
            // Pillow counts an APNG default image that is not part of the animation as a frame;
            // acTL (and the reference renderings) do not.
            let renderings = Corpus.referenceRenderings(for: entry.path).count
            #expect(metadata.frameCount == frames || (entry.format == "PNG" && metadata.frameCount == renderings))
        }
    }

    @Test("Given HEIC and AVIF stills, when read, then the format and crop are right", .enabled(if: Corpus.isAvailable))
    func heifFamily() throws {
        let heic = try ImageHeaderReader.read(Corpus.data("generated-valid/still_64x48.heic"))
        #expect(heic.format == .heic)
        #expect(heic.pixelSize == PixelSize(width: 64, height: 48))  // ispe 64x64 cropped by clap
        let avif = try ImageHeaderReader.read(Corpus.data("generated-valid/still_64x48.avif"))
        #expect(avif.format == .avif)
        #expect(!avif.isAnimated)
        let grid = try ImageHeaderReader.read(Corpus.data("sdwebimage/TestImage.heic"))
        #expect(grid.pixelSize == PixelSize(width: 1440, height: 960))  // the primary item, not a tile
    }

    @Test("Given an EXIF-rotated JPEG, when read, then the orientation is reported", .enabled(if: Corpus.isAvailable))
    func jpegOrientation() throws {
        for value in 1...8 {
            let metadata = try ImageHeaderReader.read(Corpus.data("exif-orientation/Landscape_\(value).jpg"))
            #expect(metadata.orientation == ImageOrientation(exifValue: value))
        }
    }

    @Test("Given animations, when read, then frame and loop counts come from the container", .enabled(if: Corpus.isAvailable))
    func animationCounts() throws {
        let gif = try ImageHeaderReader.read(Corpus.data("generated-valid/anim_6f_loop3_64x48.gif"))
        #expect(gif.frameCount == 6)
        #expect(gif.loopCount == 3)
        #expect(gif.isAnimated)
        let apng = try ImageHeaderReader.read(Corpus.data("generated-valid/anim_6f_64x48.apng"))
        #expect(apng.frameCount == 6)
        #expect(apng.isAnimated)
        let webp = try ImageHeaderReader.read(Corpus.data("generated-valid/anim_6f_lossy_64x48.webp"))
        #expect(webp.frameCount == 6)
        #expect(webp.isAnimated)
        let avis = try ImageHeaderReader.read(Corpus.data("generated-valid/anim_6f_64x48.avif"))
        #expect(avis.isAnimated)
        #expect(avis.pixelSize == PixelSize(width: 64, height: 48))
    }

    @Test("Given BMP headers, when read, then bottom-up, top-down and core headers give the size")
    func bmp() throws {
        #expect(try ImageHeaderReader.read(HeaderFixtures.bmp(width: 40, height: 30)).pixelSize == PixelSize(width: 40, height: 30))
        let topDown = try ImageHeaderReader.read(HeaderFixtures.bmp(width: 40, height: -30))
        #expect(topDown.pixelSize == PixelSize(width: 40, height: 30))
        #expect(topDown.format == .bmp)
        #expect(try ImageHeaderReader.read(HeaderFixtures.bmpCore(width: 7, height: 9)).pixelSize == PixelSize(width: 7, height: 9))
        #expect(throws: WebImageError.self) { try ImageHeaderReader.read(HeaderFixtures.bmp(width: 0, height: 30)) }
        #expect(throws: WebImageError.self) { try ImageHeaderReader.read(HeaderFixtures.bmp(width: 40, height: Int(Int32.min))).pixelSize }
    }

    @Test("Given ICO directories, when read, then the largest entry wins (0 means 256, PNG entries use IHDR)")
    func ico() throws {
        #expect(try ImageHeaderReader.read(HeaderFixtures.ico([(16, 16), (48, 48), (32, 32)])).pixelSize == PixelSize(width: 48, height: 48))
        #expect(try ImageHeaderReader.read(HeaderFixtures.ico([(16, 16), (0, 0)])).pixelSize == PixelSize(width: 256, height: 256))
        let png = try ImageHeaderReader.read(HeaderFixtures.ico([(0, 0), (32, 32)], embeddedPNG: (512, 512)))
        #expect(png.pixelSize == PixelSize(width: 512, height: 512))
        #expect(png.format == .ico)
    }

    @Test("Given TIFF in both byte orders, when read, then IFD0 gives size and orientation", arguments: [false, true])
    func tiff(bigEndian: Bool) throws {
        let metadata = try ImageHeaderReader.read(HeaderFixtures.tiff(width: 300, height: 200, orientation: 6, bigEndian: bigEndian))
        #expect(metadata.format == .tiff)
        #expect(metadata.pixelSize == PixelSize(width: 300, height: 200))
        #expect(metadata.orientation == .right)
        #expect(metadata.displaySize == PixelSize(width: 200, height: 300))
    }

    @Test("Given truncated headers, when read, then a typed bad-data error is thrown")
    func truncated() throws {
        let samples: [Data] = [
            HeaderFixtures.bmp(width: 4, height: 4).prefix(20),
            HeaderFixtures.tiff(width: 4, height: 4, orientation: 1, bigEndian: false).prefix(12),
            Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00]),
            Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]),
            Data("GIF89a".utf8),
            Data("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8),
            Data([0, 0, 0, 0x14] + Array("ftypmif1\u{0}\u{0}\u{0}\u{0}mif1".utf8)),
        ]
        for data in samples {
            do {
                _ = try ImageHeaderReader.read(data)
                Issue.record("expected an error for \(Array(data))")
            } catch WebImageError.badImageData {
            } catch {
                Issue.record("unexpected error \(error) for \(Array(data))")
            }
        }
    }

    @Test("Given vector and unknown data, when read, then unsupported or bad data is reported")
    func unsupported() {
        #expect(throws: WebImageError.self) { try ImageHeaderReader.read(Data("<svg xmlns='x'/>".utf8)) }
        #expect(throws: WebImageError.self) { try ImageHeaderReader.read(Data("hello world".utf8)) }
        #expect(throws: WebImageError.self) { try ImageHeaderReader.read(Data()) }
    }

    @Test("Given a manager with no coders, when metadata is read, then the header reader answers", .enabled(if: Corpus.isAvailable))
    func managerFallback() throws {
        let manager = CodersManager()
        let metadata = try manager.readMetadata(Corpus.data("sdwebimage/TestImage.jpg"))
        #expect(metadata.format == .jpeg)
        #expect(metadata.pixelSize == PixelSize(width: 80, height: 60))
        #expect(try manager.readMetadata(HeaderFixtures.bmp(width: 3, height: 2)).pixelSize == PixelSize(width: 3, height: 2))
        #expect(throws: WebImageError.self) { try manager.readMetadata(Data("<html>404</html>".utf8)) }
    }
}

@Suite("Animation sniffing (I-3)")
struct AnimationSniffingTests {
    @Test(
        "Given a corpus file, when sniffed for animation, then the answer matches the manifest",
        .enabled(if: Corpus.isAvailable), arguments: animationEntries)
    func corpusAnimation(entry: CorpusEntry) throws {
        #expect(ImageFormat.isAnimated(try Corpus.data(entry.path)) == entry.animated.hasPrefix("yes"))
    }

    @Test("Given stills of other formats and junk, when sniffed, then they are not animated")
    func others() {
        #expect(!ImageFormat.isAnimated(HeaderFixtures.bmp(width: 4, height: 4)))
        #expect(!ImageFormat.isAnimated(HeaderFixtures.tiff(width: 4, height: 4, orientation: 1, bigEndian: true)))
        #expect(!ImageFormat.isAnimated(Data()))
        #expect(!ImageFormat.isAnimated(Data("GIF89a".utf8)))
    }
}

@Suite("Header reader robustness")
struct HeaderReaderRobustnessTests {
    /// One seed per format: corpus files when present, plus the hand-built headers.
    static func seeds() throws -> [Data] {
        var seeds = [
            HeaderFixtures.bmp(width: 40, height: -30), HeaderFixtures.bmpCore(width: 7, height: 9),
            HeaderFixtures.ico([(16, 16), (0, 0)], embeddedPNG: (300, 300)),
            HeaderFixtures.tiff(width: 300, height: 200, orientation: 6, bigEndian: true),
            HeaderFixtures.tiff(width: 300, height: 200, orientation: 3, bigEndian: false),
        ]
        if Corpus.isAvailable {
            for path in [
                "exif-orientation/Landscape_6.jpg", "generated-valid/anim_6f_64x48.apng",
                "generated-valid/anim_6f_loop3_64x48.gif", "generated-valid/anim_6f_lossy_64x48.webp",
                "generated-valid/alpha_lossy_64x48.webp", "generated-valid/1x1.webp",
                "generated-valid/still_64x48.heic", "generated-valid/anim_6f_64x48.avif",
                "sdwebimage/TestImage.heic",
            ] {
                seeds.append(try Corpus.data(path))
            }
        }
        return seeds
    }

    @Test("Given 200 deterministic random mutations, when read and sniffed, then nothing crashes")
    func mutations() throws {
        let seeds = try Self.seeds()
        var rng = SeededRandom(seed: 0x5EED)
        var outcomes = (read: 0, failed: 0)
        for round in 0..<200 {
            var bytes = [UInt8](seeds[round % seeds.count])
            switch Int.random(in: 0..<3, using: &rng) {
            case 0:  // flip a few bytes in the first kilobyte (where the headers are)
                for _ in 0..<Int.random(in: 1...8, using: &rng) {
                    let i = Int.random(in: 0..<min(bytes.count, 1024), using: &rng)
                    bytes[i] = UInt8.random(in: 0...255, using: &rng)
                }
            case 1:  // truncate
                bytes = Array(bytes.prefix(Int.random(in: 0..<bytes.count, using: &rng)))
            default:  // set a run to 0xFF (huge lengths and sizes)
                let start = Int.random(in: 0..<min(bytes.count, 256), using: &rng)
                for i in start..<min(bytes.count, start + 4) { bytes[i] = 0xFF }
            }
            let data = Data(bytes)
            _ = ImageFormat.isAnimated(data)
            do {
                let metadata = try ImageHeaderReader.read(data)
                #expect(metadata.pixelSize.width > 0 && metadata.pixelSize.height > 0)
                outcomes.read += 1
            } catch {
                outcomes.failed += 1  // typed: read(_:) throws only WebImageError
            }
        }
        #expect(outcomes.read + outcomes.failed == 200)
    }
}
