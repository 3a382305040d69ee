import CLCMS2
import Foundation
import Testing
import WebImageCodecs
import WebImageCore

/// G-2: CMYK and YCCK JPEGs without a profile are read in the built-in default CMYK profile
/// (``DefaultCMYKProfile``), inverted (Adobe marker) or plain, and come out as LittleCMS makes
/// them with that profile — far closer than the naive conversion, which `.ignore` still gives.
@Suite("Colour: default CMYK profile")
struct CMYKDefaultProfileTests {
    /// CMYK values (4 bytes a pixel, 0 = no ink) from the test pattern: grey component
    /// replacement with half the black, so every ink and the black channel vary.
    static func inks(width: Int, height: Int) -> [UInt8] {
        let pattern = TestImages.pattern(width: width, height: height)
        var cmyk = [UInt8](repeating: 0, count: width * height * 4)
        for i in 0..<(width * height) {
            let (r, g, b) = (pattern.bytes[i * 4], pattern.bytes[i * 4 + 1], pattern.bytes[i * 4 + 2])
            let k = (255 - max(r, g, b)) / 2
            cmyk[i * 4] = 255 - r - k
            cmyk[i * 4 + 1] = 255 - g - k
            cmyk[i * 4 + 2] = 255 - b - k
            cmyk[i * 4 + 3] = k
        }
        return cmyk
    }

    /// `jpeg` without its Adobe `APP14` segment: libjpeg then reads the four components as plain
    /// (not inverted) CMYK.
    static func removingAdobeMarker(_ jpeg: Data) -> Data {
        var bytes = [UInt8](jpeg)
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF, bytes[i + 1] != 0xDA {
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if bytes[i + 1] == 0xEE {
                bytes.removeSubrange(i..<(i + 2 + length))
            } else {
                i += 2 + length
            }
        }
        return Data(bytes)
    }

    /// LittleCMS converting `stored` (CMYK as the file stores it; `inverted` for Adobe's
    /// 255 = no ink) read in `profile` to sRGB, relative colorimetric, unoptimised: the reference.
    static func reference(_ stored: [UInt8], width: Int, height: Int, profile: ColorProfile, inverted: Bool) throws -> PixelBuffer {
        let iccData = try #require(profile.iccData)
        let source = try #require(iccData.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) })
        let sRGB = try #require(cmsCreate_sRGBProfile())
        defer {
            cmsCloseProfile(source)
            cmsCloseProfile(sRGB)
        }
        let transform = try #require(cmsCreateTransform(
            source, inverted ? CLCMS2_TYPE_CMYK_8_REV : CLCMS2_TYPE_CMYK_8, sRGB, CLCMS2_TYPE_RGB_8,
            cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), cmsUInt32Number(cmsFLAGS_NOOPTIMIZE)))
        defer { cmsDeleteTransform(transform) }
        let count = width * height
        var rgb = [UInt8](repeating: 0, count: count * 3)
        cmsDoTransform(transform, stored, &rgb, cmsUInt32Number(count))
        return PixelBuffer.make(width: width, height: height) { out in
            for i in 0..<count {
                out[i * 4] = rgb[i * 3]
                out[i * 4 + 1] = rgb[i * 3 + 1]
                out[i * 4 + 2] = rgb[i * 3 + 2]
                out[i * 4 + 3] = 255
            }
        }
    }

    @Test("The built-in default CMYK profile is a CMYK output profile LittleCMS opens")
    func profileIsCMYK() throws {
        let profile = DefaultCMYKProfile.profile
        #expect(profile.colorModel == .cmyk)
        #expect(profile.name.contains("FOGRA39"))
        let data = try #require(profile.iccData)
        #expect(data.count < 150_000)
        let handle = data.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }
        #expect(handle != nil)
        if let handle {
            #expect(cmsGetColorSpace(handle) == cmsSigCmykData)
            #expect(cmsIsTag(handle, cmsSigAToB1Tag) != 0)
            cmsCloseProfile(handle)
        }
    }

    @Test(
        "Given an untagged CMYK JPEG, inverted (Adobe marker) or plain, when decoded, then it matches LittleCMS with the default profile",
        arguments: [true, false])
    func untaggedCMYK(adobeInverted: Bool) throws {
        let (width, height) = (96, 64)
        let inks = Self.inks(width: width, height: height)
        // TurboJPEG writes CMYK input as YCCK with an Adobe marker, read as inverted CMYK.
        // Without the marker the components are read as plain CMYK (other values, but values
        // all the same: the reference is computed from what TurboJPEG decodes).
        let stored = adobeInverted ? inks.map { 255 - $0 } : inks
        var data = try CMYKTests.jpeg(stored, width: width, height: height, profile: nil)
        if !adobeInverted { data = Self.removingAdobeMarker(data) }
        #expect(try JPEGCoder().readMetadata(data).colorProfile == nil)
        let asStored = try CMYKTests.storedCMYK(data, width: width, height: height)
        let reference = try Self.reference(
            asStored, width: width, height: height, profile: DefaultCMYKProfile.profile, inverted: adobeInverted)

        let decoded = try JPEGCoder().decode(data, options: .default)
        #expect(decoded.colorProfile == nil)
        let difference = ColorDifference(decoded.pixels, reference)
        #expect(difference.mean <= 1.0 && difference.p95 <= 2.0, "\(difference)")

        // `.ignore` gives the naive conversion, which is far from a printed colour.
        var ignore = DecodeOptions()
        ignore.colorManagement = .ignore
        let naive = ColorDifference(try JPEGCoder().decode(data, options: ignore).pixels, reference)
        #expect(naive.mean > 5 * max(difference.mean, 0.5), "naive \(naive), ours \(difference)")

        // Untagged CMYK pixels cannot be kept either: `.preserve` converts the same way.
        var preserve = DecodeOptions()
        preserve.colorManagement = .preserve
        #expect(try JPEGCoder().decode(data, options: preserve).pixels.bytes == decoded.pixels.bytes)
    }
}
