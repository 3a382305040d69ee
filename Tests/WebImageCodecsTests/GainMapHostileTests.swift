import Foundation
import Testing
import WebImageCodecs
import WebImageCore

/// Damaged gain-map JPEGs made at test time from one this library writes (SPEC H-7): each ends
/// with an image (with or without its map) or a typed error, never a crash or a map that does
/// not fit the image.
@Suite("Gain maps: hostile input")
struct GainMapHostileTests {
    let coder = JPEGCoder()

    /// A 64×48 image with a 16×12 three-channel map, written as Ultra HDR + ISO 21496-1.
    static func wellFormed() throws -> Data {
        let base = PixelBuffer.make(width: 64, height: 48) { out in
            for i in 0..<(64 * 48) {
                out[i * 4] = UInt8(i % 64 * 4); out[i * 4 + 1] = UInt8(i / 64 * 5); out[i * 4 + 2] = 90; out[i * 4 + 3] = 255
            }
        }
        let mapPixels = PixelBuffer.make(width: 16, height: 12) { out in
            for i in 0..<(16 * 12) { out[i * 4] = UInt8(i); out[i * 4 + 1] = 200; out[i * 4 + 2] = UInt8(255 - i); out[i * 4 + 3] = 255 }
        }
        let metadata = GainMapMetadata(
            channels: [.init(gainMapMin: 0, gainMapMax: 2, gamma: 1), .init(gainMapMin: -0.5, gainMapMax: 2.5, gamma: 0.8), .init(gainMapMin: 0, gainMapMax: 1, gamma: 1.2)],
            alternateHeadroom: 2)
        let map = GainMap(pixels: mapPixels, channelCount: 3, metadata: metadata)
        return try JPEGCoder().encode(Image(pixels: base, format: .jpeg, hasAlpha: false).replacing(gainMap: map), format: .jpeg, options: .default)
    }

    static func find(_ needle: [UInt8], in data: [UInt8], from: Int = 0) -> Int? {
        guard data.count >= needle.count else { return nil }
        for i in from...(data.count - needle.count) where data[i..<(i + needle.count)].elementsEqual(needle) { return i }
        return nil
    }

    /// The damaged variants, with names.
    static func variants() throws -> [(String, Data)] {
        let good = [UInt8](try wellFormed())
        var out: [(String, Data)] = []
        func add(_ name: String, _ bytes: [UInt8]) { out.append((name, Data(bytes))) }
        for cut in stride(from: 2, to: good.count, by: max(1, good.count / 40)) { add("truncated at \(cut)", Array(good[..<cut])) }
        let mpf = try #require(find(Array("MPF".utf8) + [0], in: good))
        let tiff = mpf + 4
        // The second MP entry: the IFD at tiff+8 has 3 tags, then the next-IFD offset, then the entries.
        let second = tiff + 8 + 2 + 36 + 4 + 16
        for value: UInt32 in [0, 1, 4, 0x7FFF_FFFF, 0xFFFF_FFFF, UInt32(good.count), UInt32(good.count - tiff), 100, 1000] {
            var b = good
            for k in 0..<4 { b[second + 8 + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * k)) }
            add("MPF offset \(value)", b)
            var s = good
            for k in 0..<4 { s[second + 4 + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * k)) }
            add("MPF size \(value)", s)
        }
        for (name, at, value) in [("byte order", tiff, UInt8(0x00)), ("magic", tiff + 3, 0x2B), ("IFD offset", tiff + 7, 0xF0), ("tag count", tiff + 9, 0xFF), ("image count", tiff + 8 + 2 + 12 + 11, 0x40)] {
            var b = good
            b[at] = value
            add("MPF \(name)", b)
        }
        // The map's frame header: absurd and zero dimensions, more components.
        let mapStart = try #require(find([0xFF, 0xD8, 0xFF], in: good, from: 4))
        let sof = try #require(find([0xFF, 0xC0], in: good, from: mapStart))
        for (h, w) in [(65535, 65535), (0, 0), (1, 1), (49, 65), (12, 65535), (48, 64)] {
            var b = good
            b[sof + 5] = UInt8(h >> 8); b[sof + 6] = UInt8(h & 0xFF); b[sof + 7] = UInt8(w >> 8); b[sof + 8] = UInt8(w & 0xFF)
            add("map SOF \(w)x\(h)", b)
        }
        // XMP and ISO bytes overwritten, seeded.
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(seed >> 33)
        }
        let iso = try #require(find(GainMapISO21496.identifier, in: good, from: mapStart)) + GainMapISO21496.identifier.count
        for round in 0..<30 {
            var b = good
            for _ in 0...(round % 3) { b[iso + next() % 60] = UInt8(next() & 0xFF) }
            add("ISO block damaged \(round)", b)
        }
        let xmp = try #require(find(GainMapXMP.identifier, in: good, from: mapStart)) + GainMapXMP.identifier.count
        let primaryXMP = try #require(find(GainMapXMP.identifier, in: good)) + GainMapXMP.identifier.count
        for round in 0..<30 {
            var b = good
            let start = round % 2 == 0 ? xmp : primaryXMP
            for _ in 0...(round % 4) { b[start + next() % 400] = [UInt8(ascii: "\""), UInt8(ascii: "<"), 0, UInt8(ascii: "x"), 0xFF][next() % 5] }
            add("XMP damaged \(round)", b)
        }
        for text in ["hdrgm:GainMapMax", "hdrgm:Version", "hdrgm:Gamma", "HDRCapacityMax"] {
            var b = good
            var from = 0
            while let at = find(Array(text.utf8), in: b, from: from) {
                b[at + 6] = UInt8(ascii: "Q")
                from = at + 1
            }
            add("XMP without \(text)", b)
        }
        return out
    }

    @Test("Given 100+ damaged gain-map files, when decoded, then each ends with an image whose map fits it, or a typed error")
    func damagedFiles() throws {
        let variants = try Self.variants()
        #expect(variants.count >= 100)
        var options = DecodeOptions.default
        options.limits.maxDecodedBytes = 16 * 1024 * 1024
        var withMap = 0, withIssue = 0
        for (name, data) in variants {
            do {
                let image = try coder.decode(data, options: options)
                if let map = image.gainMap {
                    withMap += 1
                    #expect(map.pixels.width <= image.width && map.pixels.height <= image.height, "\(name)")
                } else if image.gainMapIssue != nil {
                    withIssue += 1
                }
                _ = try? coder.readMetadata(data)
            } catch is WebImageError {
                continue
            } catch {
                Issue.record("\(name): untyped error \(error)")
            }
        }
        // Both outcomes happen: damage the map survives, and damage that drops it with a reason.
        #expect(withMap > 0 && withIssue > 0, "with map \(withMap), with a reason \(withIssue)")
    }

    @Test("Given the well-formed file, when decoded, then the map and its values come back")
    func wellFormedRoundTrip() throws {
        let image = try coder.decode(try Self.wellFormed(), options: .default)
        let map = try #require(image.gainMap, "\(String(describing: image.gainMapIssue))")
        #expect(map.pixelSize == PixelSize(width: 16, height: 12) && map.channelCount == 3)
        #expect(map.metadata.channels.count == 3 && abs(map.metadata.channels[1].gamma - 0.8) < 1e-9)
        #expect(map.encoded.xmp != nil && map.encoded.iso21496 != nil)
        let packet = try #require(map.encoded.xmp)
        let xmp = try #require(try GainMapXMP.parse(packet)?.metadata)
        #expect(xmp == map.metadata)
    }
}
