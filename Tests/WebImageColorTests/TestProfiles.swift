import CLCMS2
import Foundation
import WebImageCore

/// ICC profiles made at test time with LittleCMS from published primaries, white points and
/// transfer curves (no profile file is read or committed).
enum TestProfiles {
    struct RGBSpace {
        var name: String
        var white: (Double, Double)
        var red: (Double, Double)
        var green: (Double, Double)
        var blue: (Double, Double)
        /// Parametric curve type and parameters (LittleCMS's numbering).
        var curveType: Int32
        var curveParameters: [Double]
    }

    static let sRGBCurve = (Int32(4), [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045])

    static let displayP3 = RGBSpace(
        name: "Display P3 (test)", white: (0.3127, 0.3290), red: (0.680, 0.320), green: (0.265, 0.690),
        blue: (0.150, 0.060), curveType: sRGBCurve.0, curveParameters: sRGBCurve.1)
    static let adobeRGB = RGBSpace(
        name: "Adobe RGB (1998) (test)", white: (0.3127, 0.3290), red: (0.64, 0.33), green: (0.21, 0.71),
        blue: (0.15, 0.06), curveType: 1, curveParameters: [563.0 / 256])
    static let proPhoto = RGBSpace(
        name: "ProPhoto RGB (test)", white: (0.3457, 0.3585), red: (0.7347, 0.2653), green: (0.1596, 0.8404),
        blue: (0.0366, 0.0001), curveType: 1, curveParameters: [1.8])
    static let wideGamut = RGBSpace(
        name: "Wide Gamut RGB (test)", white: (0.3457, 0.3585), red: (0.7347, 0.2653), green: (0.1152, 0.8264),
        blue: (0.1566, 0.0177), curveType: 1, curveParameters: [2.2])

    static let allWide = [displayP3, adobeRGB, proPhoto, wideGamut]

    /// A LittleCMS handle for `space` (the caller closes it). With `tableEntries`, the curves
    /// are tabulated with that many entries instead of parametric (a large profile).
    static func handle(_ space: RGBSpace, tableEntries: Int? = nil) -> cmsHPROFILE {
        var parameters = space.curveParameters
        let parametric = cmsBuildParametricToneCurve(nil, space.curveType, &parameters)!
        defer { cmsFreeToneCurve(parametric) }
        // Tabulated: one table per channel (LittleCMS writes a curve shared by the three
        // channels once), so the profile is three tables long.
        let curves: [OpaquePointer] = (0..<3).map { _ in
            guard let entries = tableEntries else { return cmsDupToneCurve(parametric)! }
            let values = (0..<entries).map { i -> UInt16 in
                let v = cmsEvalToneCurveFloat(parametric, Float(i) / Float(entries - 1))
                return UInt16((Double(v) * 65535).rounded())
            }
            return cmsBuildTabulatedToneCurve16(nil, cmsUInt32Number(entries), values)!
        }
        defer { curves.forEach { cmsFreeToneCurve($0) } }
        var white = cmsCIExyY(x: space.white.0, y: space.white.1, Y: 1)
        var primaries = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: space.red.0, y: space.red.1, Y: 1),
            Green: cmsCIExyY(x: space.green.0, y: space.green.1, Y: 1),
            Blue: cmsCIExyY(x: space.blue.0, y: space.blue.1, Y: 1))
        var table: [OpaquePointer?] = curves
        let profile = table.withUnsafeMutableBufferPointer { cmsCreateRGBProfile(&white, &primaries, $0.baseAddress) }!
        setDescription(profile, space.name)
        return profile
    }

    static func setDescription(_ profile: cmsHPROFILE, _ text: String) {
        let mlu = cmsMLUalloc(nil, 1)
        cmsMLUsetASCII(mlu, "en", "US", text)
        cmsWriteTag(profile, cmsSigProfileDescriptionTag, UnsafeRawPointer(mlu))
        cmsMLUfree(mlu)
    }

    /// The ICC bytes of `profile` (closed afterwards).
    static func bytes(_ profile: cmsHPROFILE) -> Data {
        defer { cmsCloseProfile(profile) }
        var size: cmsUInt32Number = 0
        precondition(cmsSaveProfileToMem(profile, nil, &size) != 0)
        var out = [UInt8](repeating: 0, count: Int(size))
        precondition(cmsSaveProfileToMem(profile, &out, &size) != 0)
        return Data(out)
    }

    static func profile(_ space: RGBSpace, tableEntries: Int? = nil) -> ColorProfile {
        ColorProfile(icc: bytes(handle(space, tableEntries: tableEntries)))!
    }

    /// LittleCMS's own sRGB profile, as bytes.
    static func sRGB() -> ColorProfile {
        ColorProfile(icc: bytes(cmsCreate_sRGBProfile()))!
    }

    /// A grey profile with a pure power curve and D50 white.
    static func gray(gamma: Double) -> ColorProfile {
        var g = [gamma]
        let curve = cmsBuildParametricToneCurve(nil, 1, &g)!
        defer { cmsFreeToneCurve(curve) }
        let profile = cmsCreateGrayProfile(cmsD50_xyY(), curve)!
        setDescription(profile, "Grey gamma \(gamma) (test)")
        return ColorProfile(icc: bytes(profile))!
    }

    /// What LittleCMS makes of `pixels` (RGBA8, or grey in RGBA when `gray`) read in
    /// `profile`, converted to sRGB with the relative colorimetric intent: the reference.
    static func reference(_ pixels: PixelBuffer, from profile: ColorProfile, gray: Bool = false) -> PixelBuffer {
        let data = profile.iccData!
        let source = data.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) }!
        let target = cmsCreate_sRGBProfile()!
        defer {
            cmsCloseProfile(source)
            cmsCloseProfile(target)
        }
        let count = pixels.width * pixels.height
        if gray {
            let transform = cmsCreateTransform(
                source, CLCMS2_TYPE_GRAY_8, target, CLCMS2_TYPE_RGB_8, cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), 0)!
            defer { cmsDeleteTransform(transform) }
            let grey = (0..<count).map { pixels.bytes[$0 * 4] }
            var rgb = [UInt8](repeating: 0, count: count * 3)
            cmsDoTransform(transform, grey, &rgb, cmsUInt32Number(count))
            return PixelBuffer.make(width: pixels.width, height: pixels.height) { out in
                for i in 0..<count {
                    out[i * 4] = rgb[i * 3]
                    out[i * 4 + 1] = rgb[i * 3 + 1]
                    out[i * 4 + 2] = rgb[i * 3 + 2]
                    out[i * 4 + 3] = pixels.bytes[i * 4 + 3]
                }
            }
        }
        let transform = cmsCreateTransform(
            source, CLCMS2_TYPE_RGBA_8, target, CLCMS2_TYPE_RGBA_8, cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC),
            cmsUInt32Number(cmsFLAGS_COPY_ALPHA))!
        defer { cmsDeleteTransform(transform) }
        return PixelBuffer.make(width: pixels.width, height: pixels.height) { out in
            pixels.bytes.withUnsafeBytes { cmsDoTransform(transform, $0.baseAddress, out.baseAddress, cmsUInt32Number(count)) }
        }
    }
}
