import CLCMS2
import CTurboJPEG
import Foundation
import Testing
import WebImageCodecs
import WebImageCore

/// G-2: a CMYK JPEG with its profile is converted by LittleCMS with that profile (Adobe's
/// inverted CMYK handled); without one, with the built-in default (CMYKDefaultProfileTests).
@Suite("Colour: CMYK JPEG")
struct CMYKTests {
    /// A YCCK JPEG (TurboJPEG writes CMYK input that way, with an Adobe marker) of `cmyk`
    /// (4 bytes a pixel, as stored), with `profile` in an `APP2` segment after SOI.
    static func jpeg(_ cmyk: [UInt8], width: Int, height: Int, profile: ColorProfile?) throws -> Data {
        let handle = try #require(tjInitCompress())
        defer { tjDestroy(handle) }
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let rc = cmyk.withUnsafeBufferPointer {
            tjCompress2(
                handle, $0.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_CMYK.rawValue), &output, &size,
                Int32(TJSAMP_444.rawValue), 95, 0)
        }
        try #require(rc == 0 && output != nil)
        defer { tjFree(output) }
        var data = Data(bytes: output!, count: Int(size))
        if let icc = profile?.iccData {
            let identifier = Array("ICC_PROFILE".utf8) + [0, 1, 1]
            let length = 2 + identifier.count + icc.count
            var segment = Data([0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + identifier)
            segment.append(icc)
            data.insert(contentsOf: segment, at: 2)
        }
        return data
    }

    /// The CMYK values TurboJPEG decodes from `jpeg` (as stored).
    static func storedCMYK(_ jpeg: Data, width: Int, height: Int) throws -> [UInt8] {
        let handle = try #require(tjInitDecompress())
        defer { tjDestroy(handle) }
        var out = [UInt8](repeating: 0, count: width * height * 4)
        let rc = jpeg.withUnsafeBytes { j in
            tjDecompress2(
                handle, j.bindMemory(to: UInt8.self).baseAddress, UInt(j.count), &out, Int32(width), 0, Int32(height),
                Int32(TJPF_CMYK.rawValue), 0)
        }
        try #require(rc == 0)
        return out
    }

    @Test("Given a CMYK JPEG with a CMYK profile, when decoded, then it matches LittleCMS with that profile")
    func cmykWithProfile() throws {
        let (width, height) = (64, 48)
        let pattern = TestImages.pattern(width: width, height: height)
        // Stored inverted, as Adobe writes it (the file has an Adobe marker): 255 = no ink.
        var cmyk = [UInt8](repeating: 0, count: width * height * 4)
        for i in 0..<(width * height) {
            let (r, g, b) = (pattern.bytes[i * 4], pattern.bytes[i * 4 + 1], pattern.bytes[i * 4 + 2])
            let k = 255 - max(r, g, b)
            cmyk[i * 4] = r
            cmyk[i * 4 + 1] = g
            cmyk[i * 4 + 2] = b
            cmyk[i * 4 + 3] = 255 - k / 2
        }
        let profile = CMYKProfile.make()
        #expect(profile.colorModel == .cmyk)
        let data = try Self.jpeg(cmyk, width: width, height: height, profile: profile)
        #expect(try JPEGCoder().readMetadata(data).colorProfile == profile)
        let stored = try Self.storedCMYK(data, width: width, height: height)

        let iccData = try #require(profile.iccData)
        let source = try #require(iccData.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) })
        let sRGB = try #require(cmsCreate_sRGBProfile())
        defer {
            cmsCloseProfile(source)
            cmsCloseProfile(sRGB)
        }
        let transform = try #require(cmsCreateTransform(
            source, CLCMS2_TYPE_CMYK_8_REV, sRGB, CLCMS2_TYPE_RGB_8, cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), 0))
        defer { cmsDeleteTransform(transform) }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        cmsDoTransform(transform, stored, &rgb, cmsUInt32Number(width * height))
        let reference = PixelBuffer.make(width: width, height: height) { out in
            for i in 0..<(width * height) {
                out[i * 4] = rgb[i * 3]
                out[i * 4 + 1] = rgb[i * 3 + 1]
                out[i * 4 + 2] = rgb[i * 3 + 2]
                out[i * 4 + 3] = 255
            }
        }
        let decoded = try JPEGCoder().decode(data, options: .default)
        let difference = ColorDifference(decoded.pixels, reference)
        #expect(difference.mean <= 1.0 && difference.p95 <= 2.0, "\(difference)")
        // Ignoring the profile gives the naive conversion, which this printer model is far from.
        var ignore = DecodeOptions()
        ignore.colorManagement = .ignore
        let naive = try JPEGCoder().decode(data, options: ignore)
        #expect(ColorDifference(naive.pixels, reference).mean > 2)
        // CMYK pixels cannot be kept: .preserve converts and attaches nothing.
        var preserve = DecodeOptions()
        preserve.colorManagement = .preserve
        let kept = try JPEGCoder().decode(data, options: preserve)
        #expect(kept.colorProfile == nil)
        #expect(kept.pixels.bytes == decoded.pixels.bytes)
    }
}
