import CLCMS2
import Foundation
import WebImageCore

/// A LittleCMS profile handle made from a ``/WebImageCore/ColorProfile``, closed on `deinit`.
/// Used only while a transform is being built, by one thread.
final class LCMSProfile {
    let handle: cmsHPROFILE

    private init(_ handle: cmsHPROFILE) {
        self.handle = handle
    }

    deinit {
        cmsCloseProfile(handle)
    }

    /// The profile for `profile`, or `nil` when LittleCMS cannot read it or the description
    /// has no colorimetric meaning the library knows (unknown CICP code points, HDR transfers).
    static func make(_ profile: ColorProfile) -> LCMSProfile? {
        switch profile.kind {
        case .icc(let data):
            let handle = data.withUnsafeBytes { raw -> cmsHPROFILE? in
                guard let base = raw.baseAddress, raw.count <= UInt32.max else { return nil }
                return cmsOpenProfileFromMem(base, cmsUInt32Number(raw.count))
            }
            return handle.map(LCMSProfile.init)
        case .sRGB:
            return sRGB()
        case .cicp(let cicp):
            guard let primaries = CICPColorimetry.primaries(cicp.colorPrimaries),
                let curve = CICPColorimetry.transfer(cicp.transferCharacteristics)
            else { return nil }
            return rgb(primaries, curve: curve)
        case .gamma(let gamma, let chromaticities):
            guard gamma > 0.01, gamma < 10 else { return nil }
            return rgb(chromaticities ?? .sRGB, curve: .gamma(1 / gamma))
        }
    }

    /// LittleCMS's built-in sRGB.
    static func sRGB() -> LCMSProfile? {
        cmsCreate_sRGBProfile().map(LCMSProfile.init)
    }

    /// A matrix/TRC RGB profile with `chromaticities` and one transfer curve for all channels.
    static func rgb(_ chromaticities: Chromaticities, curve: TransferCurve) -> LCMSProfile? {
        guard let tone = curve.makeToneCurve() else { return nil }
        defer { cmsFreeToneCurve(tone) }
        var white = cmsCIExyY(x: chromaticities.whiteX, y: chromaticities.whiteY, Y: 1)
        var primaries = cmsCIExyYTRIPLE(
            Red: cmsCIExyY(x: chromaticities.redX, y: chromaticities.redY, Y: 1),
            Green: cmsCIExyY(x: chromaticities.greenX, y: chromaticities.greenY, Y: 1),
            Blue: cmsCIExyY(x: chromaticities.blueX, y: chromaticities.blueY, Y: 1))
        var curves: [OpaquePointer?] = [tone, tone, tone]
        let handle = curves.withUnsafeMutableBufferPointer { buffer in
            cmsCreateRGBProfile(&white, &primaries, buffer.baseAddress)
        }
        return handle.map(LCMSProfile.init)
    }

    /// A grey profile with sRGB's transfer and D50 white: where grey sources convert to.
    static func sRGBGray() -> LCMSProfile? {
        guard let tone = TransferCurve.sRGB.makeToneCurve() else { return nil }
        defer { cmsFreeToneCurve(tone) }
        return cmsCreateGrayProfile(cmsD50_xyY(), tone).map(LCMSProfile.init)
    }

    /// The profile's data colour space.
    var colorSpace: cmsColorSpaceSignature { cmsGetColorSpace(handle) }

    /// Whether the profile is an RGB matrix/TRC (matrix-shaper) profile.
    var isRGBMatrixShaper: Bool {
        colorSpace == cmsSigRgbData && cmsIsMatrixShaper(handle) != 0
    }

    /// The red, green and blue colorants (PCS XYZ, D50), as the columns of a 3×3 matrix.
    func colorantMatrix() -> Matrix3? {
        let tags = [cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag]
        var columns: [[Double]] = []
        for tag in tags {
            guard let raw = cmsReadTag(handle, tag) else { return nil }
            let xyz = raw.assumingMemoryBound(to: cmsCIEXYZ.self).pointee
            columns.append([xyz.X, xyz.Y, xyz.Z])
        }
        return Matrix3(columns: columns)
    }

    /// The red, green and blue tone curves, evaluated at `samples` evenly spaced inputs 0…1.
    func toneCurveSamples(_ samples: Int) -> [[Double]]? {
        let tags = [cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag]
        var result: [[Double]] = []
        for tag in tags {
            guard let raw = cmsReadTag(handle, tag) else { return nil }
            let curve = OpaquePointer(raw)
            result.append((0..<samples).map { i in
                Double(cmsEvalToneCurveFloat(curve, Float(Double(i) / Double(samples - 1))))
            })
        }
        return result
    }
}
