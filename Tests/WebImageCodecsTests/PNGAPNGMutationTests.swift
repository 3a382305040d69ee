import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// The fuzz seeds hold no APNG, so the APNG parser and compositor get their own deterministic
/// mutations: one byte of an animation chunk changed **with its CRC fixed up**, so that the
/// semantic checks (sequence numbers, rectangles, ops, frame counts) are what is exercised,
/// not just the CRC.
@Suite("APNG mutations")
struct PNGAPNGMutationTests {
    static let files = [
        "apng/rgba16.png", "apng/wpt/dispose-previous-blend-source.png", "apng/wpt/fcTL-blend-source-transparent.png",
        "apng/wpt/fcTL-dispose-in-region-previous.png", "generated-valid/anim_6f_64x48.apng",
    ]

    /// A small deterministic generator (64-bit LCG).
    struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(max(1, bound)))
        }
    }

    /// (type, start of the length field, data length) of each chunk.
    static func chunks(_ bytes: [UInt8]) -> [(type: String, start: Int, length: Int)] {
        var result: [(String, Int, Int)] = []
        var offset = 8
        while offset + 12 <= bytes.count {
            let length = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard offset + 12 + length <= bytes.count else { break }
            result.append((String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self), offset, length))
            offset += 12 + length
        }
        return result
    }

    @Test(
        "Given APNGs with one animation-chunk byte changed and a valid CRC, then every call ends in an image or a WebImageError",
        .enabled(if: Corpus.isAvailable), arguments: files)
    func mutatedAnimationChunks(path: String) throws {
        let original = [UInt8](try Corpus.data(path))
        let targets = Self.chunks(original).filter { ["acTL", "fcTL", "fdAT", "IDAT", "IHDR"].contains($0.type) && $0.length > 0 }
        var generator = Generator(state: UInt64(path.utf8.count))
        let coder = PNGCoder()
        for _ in 0..<150 {
            var bytes = original
            let chunk = targets[generator.next(targets.count)]
            // Bias towards the fields that matter: the first 26 bytes of the data.
            let position = chunk.start + 8 + generator.next(min(chunk.length, 26))
            bytes[position] = UInt8(generator.next(256))
            let crc = CRC32.checksum(bytes[(chunk.start + 4)..<(chunk.start + 8 + chunk.length)])
            let at = chunk.start + 8 + chunk.length
            bytes.replaceSubrange(at..<(at + 4), with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
            Self.exercise(coder, Data(bytes), path)
        }
        // Truncations at every 7th byte.
        for end in stride(from: 0, to: original.count, by: 7) {
            Self.exercise(coder, Data(original.prefix(end)), path)
        }
    }

    static func exercise(_ coder: PNGCoder, _ data: Data, _ path: String) {
        PNGFuzzSeedTests.expectImageOrWebImageError(path) {
            let image = try coder.decode(data, options: .default)
            #expect(image.frames.allSatisfy { $0.pixels.width == image.width && $0.pixels.height == image.height })
        }
        PNGFuzzSeedTests.expectImageOrWebImageError(path) { _ = try coder.readMetadata(data) }
        PNGFuzzSeedTests.expectImageOrWebImageError(path) {
            let source = try coder.makeAnimatedSource(data, options: .default)
            for index in 0..<source.frameCount { _ = try source.frame(at: index) }
            _ = try source.frame(at: 0)
        }
        PNGFuzzSeedTests.expectImageOrWebImageError(path) {
            _ = try coder.makeIncrementalDecoder(options: .default).update(data, isComplete: false)
        }
    }
}
