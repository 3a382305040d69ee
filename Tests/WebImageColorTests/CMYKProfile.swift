import CLCMS2
import Foundation
import WebImageCore

/// A CMYK output profile made at test time: an `A2B0` table (9 points per ink) sampled from a
/// simple printer model — each ink absorbs its complement with a 1.3 gamma, black darkens all —
/// to Lab (D50) through LittleCMS's sRGB. Enough for LittleCMS to convert CMYK files with it.
enum CMYKProfile {
    static func make() -> ColorProfile {
        let profile = cmsCreateProfilePlaceholder(nil)!
        cmsSetProfileVersion(profile, 4.3)
        cmsSetDeviceClass(profile, cmsSigOutputClass)
        cmsSetColorSpace(profile, cmsSigCmykData)
        cmsSetPCS(profile, cmsSigLabData)
        TestProfiles.setDescription(profile, "Test CMYK printer")
        _ = cmsWriteTag(profile, cmsSigMediaWhitePointTag, UnsafeRawPointer(cmsD50_XYZ()))

        let sRGB = cmsCreate_sRGBProfile()!
        let lab = cmsCreateLab4Profile(nil)!
        let toLab = cmsCreateTransform(
            sRGB, TYPE_RGB_DBL_VALUE, lab, TYPE_LAB_DBL_VALUE, cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), 0)!
        defer {
            cmsDeleteTransform(toLab)
            cmsCloseProfile(sRGB)
            cmsCloseProfile(lab)
        }
        let pipeline = cmsPipelineAlloc(nil, 4, 3)!
        let clut = cmsStageAllocCLut16bit(nil, 9, 4, 3, nil)!
        let sampler: cmsSAMPLER16 = { input, output, cargo in
            guard let input, let output, let cargo else { return 0 }
            let ink = (0..<4).map { Double(input[$0]) / 65535 }
            var rgb = (0..<3).map { pow((1 - ink[$0]) * (1 - ink[3]), 1.3) }
            var lab = cmsCIELab()
            cmsDoTransform(cargo, &rgb, &lab, 1)
            cmsFloat2LabEncoded(output, &lab)
            return 1
        }
        _ = cmsStageSampleCLut16bit(clut, sampler, toLab, 0)
        // Identity curves around the table: the A-CLUT-B shape a v4 `mAB` tag stores.
        _ = cmsPipelineInsertStage(pipeline, cmsAT_END, cmsStageAllocToneCurves(nil, 4, nil))
        _ = cmsPipelineInsertStage(pipeline, cmsAT_END, clut)
        _ = cmsPipelineInsertStage(pipeline, cmsAT_END, cmsStageAllocToneCurves(nil, 3, nil))
        _ = cmsWriteTag(profile, cmsSigAToB0Tag, UnsafeRawPointer(pipeline))
        cmsPipelineFree(pipeline)
        return ColorProfile(icc: TestProfiles.bytes(profile))!
    }

    /// `TYPE_RGB_DBL` and `TYPE_Lab_DBL` (function-like macros in lcms2.h).
    static let TYPE_RGB_DBL_VALUE: cmsUInt32Number = (1 << 22) | (4 << 16) | (3 << 3) | 0
    static let TYPE_LAB_DBL_VALUE: cmsUInt32Number = (1 << 22) | (10 << 16) | (3 << 3) | 0
}
