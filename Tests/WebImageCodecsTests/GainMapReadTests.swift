import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("Gain maps: JPEG read and written back (libultrahdr)", .serialized)
struct GainMapReadTests {
    let coder = JPEGCoder()

    func fixture(_ name: String) throws -> Data {
        try #require(UltraHDRReference.fixtures[name], "fixture \(name) was not made")
    }

    @Test("Given libultrahdr files at map scale 1 and 1/4, when decoded, then the map comes with its size, channels and ISO metadata", .enabled(if: UltraHDRReference.isAvailable))
    func readsLibultrahdrOutput() throws {
        for (name, mapSize) in [("uhdr-scale1.jpg", PixelSize(width: 800, height: 600)), ("uhdr-scale4.jpg", PixelSize(width: 200, height: 150))] {
            let image = try coder.decode(try fixture(name), options: .default)
            let map = try #require(image.gainMap, "\(name): \(String(describing: image.gainMapIssue))")
            #expect(map.pixelSize == mapSize, "\(name)")
            #expect(map.channelCount == 3)
            #expect(map.encoded.iso21496 != nil && map.encoded.primaryISO21496 != nil)
            #expect(map.metadata.alternateHeadroom > 0)
            #expect(image.cost == 800 * 600 * 4 + mapSize.pixelCount * 4)
        }
    }

    @Test("Given a grey map with gamma 2.2 and offsets in both forms, when decoded, then one channel and those values", .enabled(if: UltraHDRReference.isAvailable))
    func greyMapWithGamma() throws {
        let image = try coder.decode(try fixture("grey-gamma-both.jpg"), options: .default)
        let map = try #require(image.gainMap)
        #expect(map.channelCount == 1)
        let channel = try #require(map.metadata.channels.first)
        #expect(map.metadata.channels.count == 1)
        #expect(abs(channel.gamma - 2.2) < 1e-5 && abs(channel.gainMapMin + 0.5) < 1e-5 && abs(channel.gainMapMax - 2) < 1e-5)
        #expect(abs(channel.baseOffset - 0.03125) < 1e-6 && abs(channel.alternateOffset - 0.0625) < 1e-6)
        #expect(map.encoded.xmp != nil && map.encoded.iso21496 != nil)
    }

    @Test("Given Ultra HDR XMP alone, or three-channel ISO metadata alone, when decoded, then each is read", .enabled(if: UltraHDRReference.isAvailable))
    func eitherFormAlone() throws {
        let xmp = try #require(try coder.decode(try fixture("xmp-only.jpg"), options: .default).gainMap)
        #expect(xmp.encoded.iso21496 == nil && xmp.encoded.xmp != nil)
        #expect(abs(xmp.metadata.channels[0].gamma - 0.5) < 1e-9 && abs(xmp.metadata.channels[0].alternateOffset - 0.04) < 1e-9)
        let iso = try #require(try coder.decode(try fixture("multi-iso-only.jpg"), options: .default).gainMap)
        #expect(iso.metadata.channels.count == 3)
        #expect(abs(iso.metadata.channels[2].gamma - 1.5) < 1e-5 && abs(iso.metadata.channels[1].gainMapMin + 0.25) < 1e-5)
    }

    @Test("Given each fixture, when thumbnailed to 400 and written as JPEG, then libultrahdr decodes our map: same fraction, channels and ISO block", .enabled(if: UltraHDRReference.isAvailable))
    func thumbnailRoundTrip() throws {
        for name in UltraHDRReference.fixtures.keys.sorted() {
            let source = try fixture(name)
            let original = try UltraHDRReference.check(source)
            let image = try coder.decode(source, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 400, height: 400)))
            #expect(image.pixelSize == PixelSize(width: 400, height: 300))
            let map = try #require(image.gainMap, "\(name)")
            let output = try coder.encode(image, format: .jpeg, options: EncodeOptions(quality: 0.9))
            let ours = try UltraHDRReference.check(output)
            #expect(ours["hdr_width"] as? Int == 400 && ours["hdr_height"] as? Int == 300, "\(name)")
            let fullMapWidth = try #require(original["map_width"] as? Int)
            let expectedWidth = fullMapWidth == 800 ? 400 : 100
            #expect(ours["map_width"] as? Int == expectedWidth && map.pixelSize.width == expectedWidth, "\(name): \(ours)")
            #expect(ours["map_height"] as? Int == (expectedWidth == 400 ? 300 : 75), "\(name)")
            #expect(ours["map_components"] as? Int == original["map_components"] as? Int, "\(name)")
            #expect(ours["hdr_finite"] as? Bool == true)
            if let iso = original["iso"] as? String {
                #expect(ours["iso"] as? String == iso, "\(name): the ISO 21496-1 block changed")
            } else {
                #expect(ours["iso"] as? String != nil, "\(name): the ISO block made from the XMP is missing")
            }
            if let xmp = original["xmp"] as? String { #expect(ours["xmp"] as? String == xmp, "\(name): the XMP changed") }
            // And our own reader reads what we wrote.
            let again = try #require(try coder.decode(output, options: .default).gainMap)
            #expect(again.metadata.channels.count == map.metadata.channels.count)
            for (a, b) in zip(again.metadata.channels, map.metadata.channels) {
                #expect(abs(a.gamma - b.gamma) < 1e-6 && abs(a.gainMapMax - b.gainMapMax) < 1e-6)
            }
        }
    }

    @Test("Given SDWebImage's TestHDR.jpeg (Apple, MPF offset off by 928 bytes), when decoded, then its full-size three-channel map is found", .enabled(if: Corpus.isAvailable))
    func appleSample() throws {
        let data = try Corpus.data("sdwebimage/TestHDR.jpeg")
        let image = try coder.decode(data, options: .default)
        let map = try #require(image.gainMap, "\(String(describing: image.gainMapIssue))")
        #expect(map.pixelSize == image.pixelSize)
        #expect(map.channelCount == 3 && map.metadata.channels.count == 3)
        #expect(abs(map.metadata.headroom - 16) < 1e-9)
        #expect(abs(map.metadata.channels[0].gamma - 0.43598396) < 1e-6)
        let info = try coder.readMetadata(data)
        #expect(info.gainMap?.pixelSize == map.pixelSize && info.gainMapIssue == nil)
        let small = try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 400, height: 400)))
        let smallMap = try #require(small.gainMap)
        #expect(smallMap.pixelSize == small.pixelSize)
        let reduced = try coder.decode(data, scaleDenominator: 8, options: .default)
        #expect(reduced.gainMap?.pixelSize == reduced.pixelSize)
        var off = DecodeOptions.default
        off.decodesGainMap = false
        #expect(try coder.decode(data, options: off).gainMap == nil)
    }

    @Test("Given a gain map over the decoded-bytes budget, when decoded, then the base comes alone with a limits reason", .enabled(if: UltraHDRReference.isAvailable))
    func mapCountsAgainstLimits() throws {
        var options = DecodeOptions.default
        options.limits.maxDecodedBytes = 800 * 600 * 4 + 1000
        let image = try coder.decode(try fixture("uhdr-scale1.jpg"), options: options)
        #expect(image.gainMap == nil)
        #expect(image.gainMapIssue?.kind == .limits)
    }
}
