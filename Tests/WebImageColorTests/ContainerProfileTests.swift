import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// G-1: TIFF tag 34675 and AVIF `colr` read and converted like the other formats.
@Suite("Colour: TIFF and AVIF")
struct ContainerProfileTests {
    static let ignore: DecodeOptions = {
        var options = DecodeOptions()
        options.colorManagement = .ignore
        return options
    }()

    @Test("Given a TIFF with an ICC profile in tag 34675, when decoded, then it matches LittleCMS and .preserve keeps it")
    func tiffProfile() throws {
        let profile = TestProfiles.profile(TestProfiles.proPhoto)
        let pixels = TestImages.pattern()
        var rgb: [UInt8] = []
        for i in stride(from: 0, to: pixels.bytes.count, by: 4) { rgb += pixels.bytes[i..<(i + 3)] }
        var page = TIFFTestPage(width: pixels.width, height: pixels.height, samples: rgb)
        page.iccProfile = [UInt8](profile.iccData!)
        let data = try TIFFTestWriter.write([page])
        #expect(try TIFFCoder().readMetadata(data).colorProfile == profile)
        let asStored = try TIFFCoder().decode(data, options: Self.ignore)
        #expect(asStored.pixels.bytes == pixels.bytes)
        let decoded = try TIFFCoder().decode(data, options: .default)
        let difference = ColorDifference(decoded.pixels, TestProfiles.reference(pixels, from: profile))
        #expect(difference.mean <= 0.5 && difference.p95 <= 1.0, "\(difference)")
        var preserve = DecodeOptions()
        preserve.colorManagement = .preserve
        #expect(try TIFFCoder().decode(data, options: preserve).colorProfile == profile)
        // Untagged TIFF: untouched.
        let plain = try TIFFTestWriter.write([TIFFTestPage(width: pixels.width, height: pixels.height, samples: rgb)])
        #expect(try TIFFCoder().decode(plain, options: .default).pixels.bytes == pixels.bytes)
    }
}

extension ContainerProfileTests {
    @Test("Given an AVIF with an ICC profile, when decoded, then it matches LittleCMS; .preserve keeps the profile")
    func avifProfile() throws {
        let profile = TestProfiles.profile(TestProfiles.displayP3)
        let source = Image(pixels: TestImages.pattern(), hasAlpha: false, colorProfile: profile)
        let data = try AVIFCoder().encode(source, format: .avif, options: EncodeOptions(quality: 0.9))
        #expect(try AVIFCoder().readMetadata(data).colorProfile == profile)
        let asStored = try AVIFCoder().decode(data, options: Self.ignore)
        let decoded = try AVIFCoder().decode(data, options: .default)
        let difference = ColorDifference(decoded.pixels, TestProfiles.reference(asStored.pixels, from: profile))
        #expect(difference.mean <= 0.5 && difference.p95 <= 1.0, "\(difference)")
        var preserve = DecodeOptions()
        preserve.colorManagement = .preserve
        #expect(try AVIFCoder().decode(data, options: preserve).colorProfile == profile)
        // Our own untagged AVIF (nclx sRGB or unspecified): untouched.
        let plain = try AVIFCoder().encode(Image(pixels: TestImages.pattern(), hasAlpha: false), format: .avif, options: EncodeOptions())
        #expect(try AVIFCoder().readMetadata(plain).colorProfile == nil)
        #expect(try AVIFCoder().decode(plain, options: .default).pixels.bytes == AVIFCoder().decode(plain, options: Self.ignore).pixels.bytes)
    }
}
