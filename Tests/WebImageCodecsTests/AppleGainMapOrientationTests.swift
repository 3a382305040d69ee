import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// A portrait iPhone HEIC (SPEC H-3): the gain map turns with the base. iPhones associate the
/// primary image's `irot` property with the gain-map item too; the corpus photo's is angle 0,
/// so a portrait file is made at test time by setting that shared property's angle.
@Suite("Gain maps: Apple's HEIC map follows the primary's irot", .serialized)
struct AppleGainMapOrientationTests {
    /// The corpus photo with its (shared) `irot` property set to `angle` quarter turns
    /// anticlockwise: one byte changed, every offset kept.
    static func rotated(_ data: Data, angle: UInt8) throws -> Data {
        let pattern: [UInt8] = [0, 0, 0, 9] + Array("irot".utf8)
        var bytes = [UInt8](data)
        let hits = (0..<(bytes.count - pattern.count)).filter { bytes[$0] == 0 && bytes[$0 + 4] == 0x69 && Array(bytes[$0..<($0 + 8)]) == pattern }
        try #require(hits.count == 1, "one irot property")
        bytes[hits[0] + 8] = angle
        return Data(bytes)
    }

    /// `data` with the `irot` association removed from every item but the primary (its
    /// `ipma` byte set to property index 0, "no property"): the map is then stored unturned
    /// under a turned primary. Version 0, 1-byte associations, as the corpus file has.
    static func primaryOnlyRotation(_ data: Data) throws -> Data {
        var b = [UInt8](data)
        func find(_ type: String) throws -> Int {
            let t = Array(type.utf8)
            let at = try #require((4..<(b.count - 4)).first { Array(b[$0..<($0 + 4)]) == t }, "no \(type)")
            return at - 4
        }
        func u16(_ o: Int) -> Int { Int(b[o]) << 8 | Int(b[o + 1]) }
        func u32(_ o: Int) -> Int { u16(o) << 16 | u16(o + 2) }
        let pitm = try find("pitm")
        let primary = u16(pitm + 12)
        let ipco = try find("ipco")
        var index = 0, offset = ipco + 8, irot = 0
        while offset < ipco + u32(ipco) {
            index += 1
            if Array(b[(offset + 4)..<(offset + 8)]) == Array("irot".utf8) { irot = index }
            offset += u32(offset)
        }
        try #require(irot > 0)
        let ipma = try find("ipma")
        try #require(b[ipma + 8] == 0 && b[ipma + 11] & 1 == 0, "version 0, 1-byte indices")
        offset = ipma + 16
        var cleared = 0
        for _ in 0..<u32(ipma + 12) {
            let item = u16(offset), count = Int(b[offset + 2])
            for k in 0..<count where item != primary && Int(b[offset + 3 + k] & 0x7F) == irot {
                b[offset + 3 + k] = 0
                cleared += 1
            }
            offset += 3 + count
        }
        try #require(cleared > 0)
        return Data(b)
    }

    /// Mean absolute difference of two RGBA8 buffers of the same size (R, G, B).
    static func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        guard a.width == b.width, a.height == b.height else { return .infinity }
        var sum = 0, count = 0
        for (i, (x, y)) in zip(a.bytes, b.bytes).enumerated() where i % 4 != 3 {
            sum += abs(Int(x) - Int(y))
            count += 1
        }
        return Double(sum) / Double(max(count, 1))
    }

    @Test(
        "Given the iPhone HEIC turned a quarter by its irot (shared by the primary and the map), when decoded, then base and map are portrait and the map is the upright map turned the way the base is",
        .enabled(if: AppleGainMapTests.sampleAvailable))
    func portraitMapTurnsWithBase() throws {
        try Self.checkPortrait(try Self.rotated(try Data(contentsOf: Corpus.url(AppleGainMapTests.samplePath)), angle: 1))
    }

    @Test(
        "Given the iPhone HEIC turned a quarter by an irot on the primary only (the map item has none), when decoded, then the map is turned here as the base is, not dropped",
        .enabled(if: AppleGainMapTests.sampleAvailable))
    func mapWithoutIrotTurnsWithBase() throws {
        let data = try Data(contentsOf: Corpus.url(AppleGainMapTests.samplePath))
        try Self.checkPortrait(try Self.primaryOnlyRotation(try Self.rotated(data, angle: 3)))
    }

    @Test("Given HEIF bytes with irot and imir associated with an item, when its transforms are read, then they come in association order; damaged bytes give none")
    func transformsParsed() throws {
        let data = try Data(contentsOf: Corpus.url(AppleGainMapTests.samplePath))
        let turned = try Self.rotated(data, angle: 3)
        let transforms = turned.withUnsafeBytes { HEIFItemTransform.transforms(of: 49, in: HeaderBytes($0)) }
        #expect(transforms == [.rotation(quarterTurns: 3)])
        let unturned = try Self.primaryOnlyRotation(turned).withUnsafeBytes { HEIFItemTransform.transforms(of: 54, in: HeaderBytes($0)) }
        #expect(unturned.isEmpty)
        for cut in stride(from: 0, to: 4_000, by: 7) {
            _ = turned.prefix(cut).withUnsafeBytes { HEIFItemTransform.transforms(of: 49, in: HeaderBytes($0)) }
        }
    }

    /// The corpus photo (upright) against `turnedFile`, its quarter-turned version.
    static func checkPortrait(_ turnedFile: Data) throws {
        let data = try Data(contentsOf: Corpus.url(AppleGainMapTests.samplePath))
        var options = DecodeOptions()
        options.thumbnailPixelSize = PixelSize(width: 400, height: 400)
        let upright = try HEIFCoder().decode(data, options: options)
        let uprightMap = try #require(upright.gainMap)
        let portrait = try HEIFCoder().decode(turnedFile, options: options)
        #expect(portrait.width == upright.height && portrait.height == upright.width)
        let portraitMap = try #require(portrait.gainMap, "\(String(describing: portrait.gainMapIssue))")
        #expect(portraitMap.pixelSize == PixelSize(width: uprightMap.pixelSize.height, height: uprightMap.pixelSize.width))
        // Which quarter turn the base took, found from the base alone.
        let turns: [ImageOrientation] = [.left, .right]
        let differences = turns.map { Self.meanDifference(upright.pixels.applying($0), portrait.pixels) }
        let turn = turns[differences[0] < differences[1] ? 0 : 1]
        #expect(min(differences[0], differences[1]) < 2 && max(differences[0], differences[1]) > 10, "\(differences)")
        // The map took the same one.
        let same = Self.meanDifference(uprightMap.pixels.applying(turn), portraitMap.pixels)
        let other = Self.meanDifference(uprightMap.pixels.applying(turn == .left ? .right : .left), portraitMap.pixels)
        print("portrait map: \(same) against the base's turn, \(other) against the other")
        #expect(same < 2 && other > same * 3)
    }
}
