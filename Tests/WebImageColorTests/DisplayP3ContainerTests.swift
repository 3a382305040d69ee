import Foundation
import Testing
import WebImageCodecs
import WebImageCore

/// G-1, G-2: Display P3 HEIC as an iPhone writes it (an ICC profile in `colr` `prof`, with a
/// second `nclx` box) and with `nclx` only, and AVIF with `nclx` Display P3 (CICP 12/13/6),
/// decoded to sRGB as LittleCMS converts the same decoded pixels from Display P3.
@Suite("Colour: Display P3 HEIC and AVIF")
struct DisplayP3ContainerTests {
    static let ignore: DecodeOptions = {
        var options = DecodeOptions()
        options.colorManagement = .ignore
        return options
    }()

    /// CICP for Display P3: P3 primaries with D65 (12), the sRGB transfer (13), BT.601 matrix (6).
    static let displayP3Codes: (primaries: UInt16, transfer: UInt16, matrix: UInt16) = (12, 13, 6)

    /// Decodes `data` with `coder` as stored and converted, and checks the conversion against
    /// LittleCMS reading the stored pixels in the Display P3 test profile.
    static func expectDisplayP3(_ data: Data, coder: any ImageDecoding) throws {
        let asStored = try coder.decode(data, options: Self.ignore)
        let decoded = try coder.decode(data, options: .default)
        #expect(decoded.colorProfile == nil)
        let reference = TestProfiles.reference(asStored.pixels, from: TestProfiles.profile(TestProfiles.displayP3))
        let difference = ColorDifference(decoded.pixels, reference)
        #expect(difference.mean <= 1.0 && difference.p95 <= 2.0, "\(difference)")
        // The conversion did something: P3 read as sRGB is visibly off.
        #expect(ColorDifference(asStored.pixels, reference).mean > 1.0)
    }

    /// Whether `data` holds the four characters `fourcc` (a box or `colr` type).
    static func contains(_ data: Data, _ fourcc: String) -> Bool {
        data.range(of: Data(fourcc.utf8)) != nil
    }

    static func isDisplayP3Codes(_ profile: ColorProfile?) -> Bool {
        guard case .cicp(let cicp) = profile?.kind else { return false }
        return cicp.colorPrimaries == 12 && cicp.transferCharacteristics == 13
    }

    @Test("Given a Display P3 HEIC as an iPhone writes it (ICC profile and nclx), when decoded, then the ICC profile is read and it matches LittleCMS")
    func heicWithICC() throws {
        let profile = TestProfiles.profile(TestProfiles.displayP3)
        let icc: Data = try #require(profile.iccData)
        let data = try HEICTestWriter.heic(TestImages.pattern(), colour: .init(icc: icc, nclx: Self.displayP3Codes))
        #expect(try HEIFCoder().readMetadata(data).colorProfile == profile)
        #expect(Self.contains(data, "prof") && Self.contains(data, "nclx"))
        try Self.expectDisplayP3(data, coder: HEIFCoder())
        var preserve = DecodeOptions()
        preserve.colorManagement = .preserve
        #expect(try HEIFCoder().decode(data, options: preserve).colorProfile == profile)
    }

    @Test("Given a HEIC with nclx Display P3 only, when decoded, then the code points are read and it matches LittleCMS")
    func heicWithNCLX() throws {
        let data = try HEICTestWriter.heic(TestImages.pattern(), colour: .init(icc: nil, nclx: Self.displayP3Codes))
        #expect(Self.isDisplayP3Codes(try HEIFCoder().readMetadata(data).colorProfile))
        try Self.expectDisplayP3(data, coder: HEIFCoder())
    }

    @Test("Given an AVIF with nclx Display P3 (CICP 12/13/6), when decoded, then the code points are read and it matches LittleCMS")
    func avifWithNCLX() throws {
        let codes = Self.displayP3Codes
        let data = try AVIFTestWriter.avif(TestImages.pattern(), primaries: codes.primaries, transfer: codes.transfer, matrix: codes.matrix)
        #expect(Self.isDisplayP3Codes(try AVIFCoder().readMetadata(data).colorProfile))
        try Self.expectDisplayP3(data, coder: AVIFCoder())
        // sRGB code points (1/13/6): untagged, untouched.
        let sRGB = try AVIFTestWriter.avif(TestImages.pattern(), primaries: 1, transfer: 13, matrix: 6)
        #expect(try AVIFCoder().readMetadata(sRGB).colorProfile == nil)
        #expect(try AVIFCoder().decode(sRGB, options: .default).pixels.bytes == AVIFCoder().decode(sRGB, options: Self.ignore).pixels.bytes)
    }
}
