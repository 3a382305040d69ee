import CLCMS2
import WebImageCore

/// How one colour description converts to sRGB: built once per distinct profile
/// (``ColorTransformCache``) and shared by every decode.
enum ColorTransform: Sendable {
    /// Already sRGB (or equivalent), or nothing the library can convert: pixels untouched.
    case identity
    /// Matrix/TRC RGB: the library's own fixed-point path.
    case matrixShaper(MatrixShaperTransform)
    /// Grey with a profile: one table per grey value (the result stays grey).
    case gray([UInt8])
    /// Everything else RGB: LittleCMS, RGBA8 to RGBA8 with alpha copied.
    case lcmsRGBA(LCMSTransform)
    /// CMYK (as the JPEG decoder delivers it, 4 bytes a pixel) to RGBA8; `inverted` for
    /// Adobe's inverted CMYK.
    case lcmsCMYK(plain: LCMSTransform, inverted: LCMSTransform)
    /// PQ or HLG (8-bit codes) to SDR sRGB (H-4). Decoders that can read more bits use a
    /// transform for those instead (``HDRToSDR``).
    case toneMap(HDRToSDRTransform)

    /// Builds the transform for `profile`.
    static func make(for profile: ColorProfile) -> ColorTransform {
        if case .sRGB = profile.kind { return .identity }
        if case .cicp(let cicp) = profile.kind, cicp.isSRGB { return .identity }
        if case .cicp(let cicp) = profile.kind, let hdr = HDRTransformCache.shared.transform(for: cicp, bits: 8) {
            return .toneMap(hdr)
        }
        if case .gamma(let gamma, let chromaticities) = profile.kind, abs(gamma - 1 / 2.2) < 0.005,
            (chromaticities ?? .sRGB).isClose(to: .sRGB)
        {
            // gAMA 0.45455 with sRGB (or no) chromaticities is what writers put beside sRGB
            // pixels; browsers show them as sRGB.
            return .identity
        }
        guard let source = LCMSProfile.make(profile), let sRGB = LCMSProfile.sRGB() else { return .identity }
        switch source.colorSpace {
        case cmsSigRgbData:
            return makeRGB(source, sRGB: sRGB)
        case cmsSigGrayData:
            return makeGray(source) ?? .identity
        case cmsSigCmykData:
            guard
                let plain = LCMSTransform(
                    from: source, inputFormat: CLCMS2_TYPE_CMYK_8, to: sRGB,
                    outputFormat: CLCMS2_TYPE_RGBA_8),
                let inverted = LCMSTransform(
                    from: source, inputFormat: CLCMS2_TYPE_CMYK_8_REV, to: sRGB,
                    outputFormat: CLCMS2_TYPE_RGBA_8)
            else { return .identity }
            return .lcmsCMYK(plain: plain, inverted: inverted)
        default:
            return .identity
        }
    }

    /// The largest sum of absolute coefficients in a row the fixed-point path takes (so that
    /// no 1.14 sum can overflow `Int32`); beyond it LittleCMS converts.
    static let maxRowMagnitude = 7.5

    private static func makeRGB(_ source: LCMSProfile, sRGB: LCMSProfile) -> ColorTransform {
        if source.isRGBMatrixShaper, let colorants = source.colorantMatrix(), let target = sRGB.colorantMatrix(),
            let samples = source.toneCurveSamples(256)
        {
            let sRGBSamples = (0..<256).map { TransferCurve.decodeSRGB(Double($0) / 255) }
            let sameCurves = samples.allSatisfy { curve in
                zip(curve, sRGBSamples).allSatisfy { abs($0 - $1) <= 0.5 / 255 }
            }
            // sRGB-equivalent: sRGB's colorants and curves (to half an 8-bit step): untouched.
            if sameCurves && colorants.isClose(to: target, tolerance: 0.002) { return .identity }
            if let inverse = target.inverse {
                let matrix = inverse * colorants
                let magnitude = (0..<3).map { r in (0..<3).map { abs(matrix[r, $0]) }.reduce(0, +) }.max() ?? .infinity
                if magnitude <= maxRowMagnitude {
                    return .matrixShaper(MatrixShaperTransform(curves: samples, matrix: matrix))
                }
            }
        }
        guard
            let transform = LCMSTransform(
                from: source, inputFormat: CLCMS2_TYPE_RGBA_8, to: sRGB,
                outputFormat: CLCMS2_TYPE_RGBA_8)
        else { return .identity }
        return .lcmsRGBA(transform)
    }

    private static func makeGray(_ source: LCMSProfile) -> ColorTransform? {
        guard let target = LCMSProfile.sRGBGray(),
            let transform = LCMSTransform(
                from: source, inputFormat: CLCMS2_TYPE_GRAY_8, to: target,
                outputFormat: CLCMS2_TYPE_GRAY_8)
        else { return nil }
        let input = (0..<256).map { UInt8($0) }
        var output = [UInt8](repeating: 0, count: 256)
        input.withUnsafeBytes { i in
            output.withUnsafeMutableBytes { o in
                transform.apply(i.baseAddress!, o.baseAddress!, count: 256)
            }
        }
        if output == input { return .identity }
        return .gray(output)
    }
}
