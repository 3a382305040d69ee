import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

@Suite("Gain maps: Apple's HEIC HDR gain map (libheif auxiliary image, maker-note headroom)", .serialized)
struct AppleGainMapTests {
    static let samplePath = "hdr/iphone-apple-gainmap.heic"
    static var sampleAvailable: Bool { Corpus.isAvailable && FileManager.default.fileExists(atPath: Corpus.url(samplePath).path) }

    @Test("Given maker-note tags 33 and 48, when the headroom is derived, then Apple's four branches and the missing-tag defaults hold")
    func headroomFormula() throws {
        func stops(_ a: Double?, _ b: Double?) -> Double? { AppleHDRHeadroom(tag33: a, tag48: b).headroom.map(log2) }
        #expect(abs(try #require(stops(0.5, 0.005)) - 1.7) < 1e-9)
        #expect(abs(try #require(stops(0.5, 1)) - 1.5) < 1e-9)
        #expect(abs(try #require(stops(1.2, 0.01)) - 2.3) < 1e-9)
        #expect(abs(try #require(stops(1.2, 1)) - 2.0) < 1e-9)
        #expect(stops(1.2, 20) == 0)
        #expect(abs(try #require(stops(0.88, nil)) - 1.8) < 1e-9)
        #expect(abs(try #require(stops(nil, 0)) - 3.0) < 1e-9)
        #expect(stops(nil, nil) == nil)
    }

    @Test("Given every Apple map code and several headrooms, when restated in ISO terms, then the ISO gain equals Apple's within one code step, from 1 to the headroom")
    func isoRestatementMatchesApple() {
        for headroom in [1.5, 2.0, 3.482, 8.0] {
            let metadata = AppleGainMap.metadata(headroom: headroom)
            #expect((try? metadata.validate()) != nil)
            var previous = -1
            for code in 0...255 {
                let apple = 1 + (headroom - 1) * AppleGainMap.weight(code: UInt8(code))
                let v = Double(AppleGainMap.isoCode(UInt8(code), headroom: headroom))
                let iso = pow(2, metadata.channels[0].gainMapMax * v / 255)
                let step = pow(2, metadata.channels[0].gainMapMax / 255)
                #expect(abs(log2(iso / apple)) <= log2(step) / 2 + 1e-9, "headroom \(headroom) code \(code)")
                #expect(Int(v) >= previous)
                previous = Int(v)
            }
            #expect(AppleGainMap.isoCode(0, headroom: headroom) == 0 && AppleGainMap.isoCode(255, headroom: headroom) == 255)
        }
    }

    @Test("Given damaged maker notes, when read, then nothing or the readable tags, never a crash")
    func hostileMakerNotes() {
        var note = Array("Apple iOS".utf8) + [0, 0, 1, 0x4D, 0x4D, 0xFF, 0xFF]
        note += [0x00, 0x21, 0x00, 0x0A, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xF0]  // a rational far outside
        let exif = Self.exif(makerNote: note)
        #expect(AppleHDRHeadroom.read(exif: exif) == nil)
        for cut in stride(from: 0, to: exif.count, by: 3) { _ = AppleHDRHeadroom.read(exif: exif.prefix(cut)) }
        var good = Array("Apple iOS".utf8) + [0, 0, 1, 0x4D, 0x4D, 0x00, 0x01]
        good += [0x00, 0x21, 0x00, 0x0A, 0, 0, 0, 1, 0, 0, 0, 32] + [0, 0, 0, 0]
        good += [0, 0, 0, 3, 0, 0, 0, 4]
        #expect(AppleHDRHeadroom.read(exif: Self.exif(makerNote: good)) == AppleHDRHeadroom(tag33: 0.75, tag48: nil))
    }

    /// A HEIF EXIF block (4-byte offset, big-endian TIFF) whose EXIF IFD holds `makerNote`.
    static func exif(makerNote: [UInt8]) -> Data {
        var t: [UInt8] = [0, 0, 0, 0, 0x4D, 0x4D, 0, 42, 0, 0, 0, 8]
        t += [0, 1, 0x87, 0x69, 0, 4, 0, 0, 0, 1, 0, 0, 0, 26, 0, 0, 0, 0]  // IFD0: ExifIFD at 26
        let noteOffset = 26 + 2 + 12 + 4
        t += [0, 1, 0x92, 0x7C, 0, 7] + be32(makerNote.count) + be32(noteOffset) + [0, 0, 0, 0]
        t += makerNote
        return Data(t)
    }

    static func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    @Test("Given the iPhone HEIC, when decoded, then its Apple map comes at half size, one channel, headroom 2^1.8 from tag 33, and /info's header agrees", .enabled(if: sampleAvailable))
    func readsIPhoneSample() throws {
        let data = try Corpus.data(Self.samplePath)
        let coder = HEIFCoder()
        let image = try coder.decode(data, options: .default)
        let map = try #require(image.gainMap, "\(String(describing: image.gainMapIssue))")
        #expect(map.channelCount == 1)
        #expect(map.pixelSize == PixelSize(width: (image.width + 1) / 2, height: (image.height + 1) / 2))
        #expect(abs(map.metadata.headroom - pow(2, 1.8)) < 1e-9)
        #expect(map.metadata.channels[0].baseOffset == 0 && map.metadata.channels[0].alternateOffset == 0)
        // Not a flat map: a photo has both bright and plain areas.
        let codes = Set(stride(from: 0, to: map.pixels.bytes.count, by: 4 * 97).map { map.pixels.bytes[$0] })
        #expect(codes.count > 20)
        let info = try coder.readMetadata(data)
        #expect(info.gainMap?.pixelSize == map.pixelSize && info.gainMapIssue == nil)
        var off = DecodeOptions.default
        off.decodesGainMap = false
        #expect(try coder.decode(data, options: off).gainMap == nil)
    }

    @Test("Given the iPhone HEIC thumbnailed to 400 and written as JPEG, when libultrahdr reads it, then the map is there at half the size with our ISO block", .enabled(if: sampleAvailable && UltraHDRReference.isAvailable))
    func heicMapIntoJPEG() throws {
        let data = try Corpus.data(Self.samplePath)
        let image = try HEIFCoder().decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 400, height: 400)))
        #expect(max(image.width, image.height) == 400)
        let map = try #require(image.gainMap)
        #expect(map.pixelSize == PixelSize(width: (image.width + 1) / 2, height: (image.height + 1) / 2))
        let output = try JPEGCoder().encode(image, format: .jpeg, options: EncodeOptions(quality: 0.9))
        let read = try UltraHDRReference.check(output)
        #expect(read["hdr_width"] as? Int == image.width && read["hdr_height"] as? Int == image.height)
        #expect(read["map_width"] as? Int == map.pixelSize.width && read["map_components"] as? Int == 1)
        #expect(read["iso"] as? String != nil && read["xmp"] as? String != nil)
        #expect(read["hdr_finite"] as? Bool == true)
        let again = try #require(try JPEGCoder().decode(output, options: .default).gainMap)
        #expect(abs(again.metadata.headroom - pow(2, 1.8)) < 1e-4)
    }

    @Test("Given a HEIC with its map over the decoded-bytes budget, when decoded, then the base comes alone with a limits reason", .enabled(if: sampleAvailable))
    func mapCountsAgainstLimits() throws {
        let data = try Corpus.data(Self.samplePath)
        let header = try HEIFCoder().readMetadata(data)
        var options = DecodeOptions.default
        options.limits.maxDecodedBytes = header.pixelSize.pixelCount * 4 + 1000
        let image = try HEIFCoder().decode(data, options: options)
        #expect(image.gainMap == nil && image.gainMapIssue?.kind == .limits)
    }
}
