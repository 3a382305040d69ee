import Foundation
import Testing
import WebImageCodecs
import WebImageCore

/// G-3: `.preserve` keeps the pixels and the profile, and the encoders embed it.
@Suite("Colour: keeping the profile")
struct PreserveTests {
    @Test("Given a tagged file, when decoded with .preserve and encoded again, then pixels are as stored and the profile reads back")
    func preserveRoundTrip() throws {
        let profile = TestProfiles.profile(TestProfiles.adobeRGB)
        var preserve = DecodeOptions()
        preserve.colorManagement = .preserve
        var ignore = DecodeOptions()
        ignore.colorManagement = .ignore
        for (format, coder, options) in ColorConversionTests.coders {
            let source = Image(pixels: TestImages.pattern(), hasAlpha: false, colorProfile: profile)
            let data = try coder.encode(source, format: format, options: options)
            #expect(try coder.readMetadata(data).colorProfile == profile, "\(format)")
            let kept = try coder.decode(data, options: preserve)
            #expect(kept.colorProfile == profile, "\(format)")
            #expect(kept.colorProfile?.name == "Adobe RGB (1998) (test)")
            #expect(kept.pixels.bytes == (try coder.decode(data, options: ignore)).pixels.bytes, "\(format)")
            #expect(try coder.decode(data, options: ignore).colorProfile == nil)
            // Encoded again (e.g. after a transform): the profile travels with the pixels.
            let again = try coder.encode(kept, format: format, options: options)
            #expect(try coder.decode(again, options: preserve).colorProfile == profile, "\(format)")
            // Converted (the default): untagged sRGB is written.
            let converted = try coder.decode(data, options: .default)
            let written = try coder.encode(converted, format: format, options: options)
            #expect(try coder.readMetadata(written).colorProfile == nil, "\(format)")
        }
    }

    @Test("Given a coded description kept with .preserve, when encoded, then an equivalent ICC profile is embedded")
    func codedDescriptionIsEmbeddedAsICC() throws {
        let png = CodedColorTests.inserting("cICP", [12, 13, 0, 1], into: try CodedColorTests.untaggedPNG())
        var preserve = DecodeOptions()
        preserve.colorManagement = .preserve
        let kept = try PNGCoder().decode(png, options: preserve)
        let jpeg = try JPEGCoder().encode(kept, format: .jpeg, options: EncodeOptions(quality: 0.95))
        let embedded = try #require(try JPEGCoder().readMetadata(jpeg).colorProfile)
        #expect(embedded.iccData != nil)
        let converted = try JPEGCoder().decode(jpeg, options: .default)
        let direct = try PNGCoder().decode(png, options: .default)
        #expect(ColorDifference(converted.pixels, direct.pixels).mean < 1.5)
    }

    @Test("ICC descriptions are read from v2 `desc` and v4 `mluc` tags; junk is not a profile")
    func profileHeader() {
        #expect(TestProfiles.sRGB().name.contains("sRGB"))
        #expect(ColorProfile(icc: Data(repeating: 0, count: 200)) == nil)
        #expect(ColorProfile(icc: Data([1, 2, 3])) == nil)
        var truncated = TestProfiles.profile(TestProfiles.displayP3).iccData!
        truncated = truncated.prefix(140)
        // A header with a tag table that points outside the data: a profile without a name.
        if let partial = ColorProfile(icc: truncated) { #expect(partial.name == "ICC profile") }
    }
}
