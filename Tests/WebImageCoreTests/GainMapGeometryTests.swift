import Foundation
import Testing
@testable import WebImageCore

@Suite("Gain maps: metadata parsers and geometry")
struct GainMapGeometryTests {
    static let metadata = GainMapMetadata(
        channels: [.init(gainMapMin: -0.5, gainMapMax: 3, gamma: 2.2, baseOffset: 0.03125, alternateOffset: 0.0625)], alternateHeadroom: 3)

    /// A 40×30 image with a 10×8 grey map whose pixel value is its column.
    static func image() -> Image {
        let base = PixelBuffer.make(width: 40, height: 30) { out in for i in 0..<out.count { out[i] = 255 } }
        let map = PixelBuffer.make(width: 10, height: 8) { out in
            for i in 0..<(10 * 8) { let v = UInt8(i % 10 * 20); out[i * 4] = v; out[i * 4 + 1] = v; out[i * 4 + 2] = v; out[i * 4 + 3] = 255 }
        }
        return Image(pixels: base, hasAlpha: false).replacing(gainMap: GainMap(pixels: map, channelCount: 1, metadata: metadata))
    }

    @Test("Given metadata, when written as ISO 21496-1 and read back, then the values come back")
    func isoRoundTrip() throws {
        let three = GainMapMetadata(
            channels: [.init(gainMapMin: 0, gainMapMax: 4.3523002), .init(gainMapMin: -1.2, gainMapMax: 2, gamma: 0.37), .init(gainMapMin: 0.1, gainMapMax: 1)],
            baseHeadroom: 0, alternateHeadroom: 4, baseIsHDR: false, usesBaseColorSpace: false)
        for m in [Self.metadata, three] {
            let back = try GainMapISO21496.parse(GainMapISO21496.serialize(m))
            #expect(back.channels.count == m.channels.count && back.usesBaseColorSpace == m.usesBaseColorSpace)
            for (a, b) in zip(back.channels, m.channels) {
                #expect(abs(a.gainMapMax - b.gainMapMax) < 1e-7 && abs(a.gamma - b.gamma) < 1e-7 && abs(a.baseOffset - b.baseOffset) < 1e-7)
            }
        }
        #expect(throws: GainMapIssue.self) { try GainMapISO21496.parse(Data([0, 0, 0, 0, 0x80, 0, 0])) }
        #expect(throws: GainMapIssue.self) { try GainMapISO21496.parse(Data([0, 1, 0, 0])) }
    }

    @Test("Given XMP in attribute and rdf:Seq forms, when parsed, then the values; with a bad number, a metadata issue")
    func xmpForms() throws {
        let seq = """
            <x:xmpmeta><rdf:RDF><rdf:Description xmlns:g="http://ns.adobe.com/hdr-gain-map/1.0/" g:Version="1.0" g:HDRCapacityMax="4">
            <g:GainMapMax><rdf:Seq><rdf:li>4.35</rdf:li><rdf:li>4.4</rdf:li><rdf:li>4.5</rdf:li></rdf:Seq></g:GainMapMax>
            <g:Gamma>0.5</g:Gamma></rdf:Description></rdf:RDF></x:xmpmeta>
            """
        let content = try #require(try GainMapXMP.parse(Data(seq.utf8)))
        let m = try #require(content.metadata)
        #expect(content.version == "1.0" && m.channels.count == 3 && m.channels[2].gainMapMax == 4.5 && m.channels[1].gamma == 0.5)
        let generated = try #require(try GainMapXMP.parse(GainMapXMP.mapPacket(for: m))?.metadata)
        #expect(generated == m)
        #expect(try GainMapXMP.parse(GainMapXMP.primaryPacket(gainMapLength: 1234))?.gainMapLength == 1234)
        #expect(try GainMapXMP.parse(Data("<x:xmpmeta/>".utf8)) == nil)
        #expect(throws: GainMapIssue.self) { try GainMapXMP.parse(Data(seq.replacingOccurrences(of: "4.35", with: "4.3.5").utf8)) }
    }

    @Test("Given an MPF index, when written and read back, then the same entries")
    func mpfRoundTrip() throws {
        let index = MPFIndex(entries: [.init(attribute: MPFIndex.primaryAttribute, size: 5000, offset: 0), .init(attribute: 0, size: 700, offset: 4900)])
        let payload = index.tiffPayload()
        #expect(payload.count == MPFIndex.payloadLength(images: 2))
        #expect(try MPFIndex(tiff: payload) == index)
        #expect(throws: GainMapIssue.self) { try MPFIndex(tiff: payload.prefix(40)) }
    }

    @Test("Given an image with a 1/4 map, when resized, cropped, flipped, rotated, extended and padded, then the map follows at its fraction")
    func geometry() throws {
        let image = Self.image()
        let resized = try #require(ResizeTransformer(size: PixelSize(width: 20, height: 15)).transform(image, key: ""))
        #expect(resized.gainMap?.pixelSize == PixelSize(width: 5, height: 4))
        let cropped = try #require(CropTransformer(rect: PixelRect(x: 20, y: 0, width: 20, height: 30)).transform(image, key: ""))
        let croppedMap = try #require(cropped.gainMap)
        #expect(croppedMap.pixelSize == PixelSize(width: 5, height: 8))
        // The right half of the map: its first column was column 5 (value 100).
        #expect(abs(Int(croppedMap.pixels.pixel(x: 0, y: 3).r) - 100) <= 12)
        let flipped = try #require(FlipTransformer(horizontal: true, vertical: false).transform(image, key: ""))
        #expect(flipped.gainMap?.pixels.pixel(x: 0, y: 0).r == 180)
        let rotated = try #require(RotateTransformer(angle: 90).transform(image, key: ""))
        #expect(rotated.gainMap?.pixelSize == PixelSize(width: 8, height: 10))
        let tilted = try #require(RotateTransformer(angle: 30).transform(image, key: ""))
        #expect(tilted.gainMap == nil && tilted.gainMapIssue?.kind == .geometry)
        let extended = try #require(ExtendTransformer(size: PixelSize(width: 80, height: 30), x: 40, y: 0, fill: RGBA(r: 0, g: 0, b: 0)).transform(image, key: ""))
        let extendedMap = try #require(extended.gainMap)
        #expect(extendedMap.pixelSize == PixelSize(width: 20, height: 8))
        // The added area gets the neutral gain: ((0 − (−0.5)) / 3.5)^2.2 of 255.
        let neutral = UInt8((pow(0.5 / 3.5, 2.2) * 255).rounded())
        #expect(extendedMap.pixels.pixel(x: 0, y: 0).r == neutral && extendedMap.pixels.pixel(x: 10, y: 0).r == 0)
        let padded = try #require(PaddingTransformer(top: 4, right: 0, bottom: 0, left: 0).transform(image, key: ""))
        #expect(padded.gainMap?.pixelSize == PixelSize(width: 10, height: 9))
        // A value step keeps the map as it is.
        let blurred = try #require(BlurTransformer(radius: 2).transform(image, key: ""))
        #expect(blurred.gainMap?.pixels === image.gainMap?.pixels)
    }
}
