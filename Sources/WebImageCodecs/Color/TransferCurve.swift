import CLCMS2
import Foundation
import WebImageCore

/// The transfer curves coded colour descriptions use (linear = curve(encoded)).
enum TransferCurve: Equatable {
    /// sRGB (IEC 61966-2-1).
    case sRGB
    /// BT.709 / BT.601 / BT.2020 (the inverse of their OETF, as browsers apply it).
    case bt709
    /// A pure power: linear = encoded^exponent.
    case gamma(Double)

    /// The curve as LittleCMS parameters (parametric type 1 or 4); the caller frees it.
    func makeToneCurve() -> OpaquePointer? {
        switch self {
        case .sRGB:
            // Y = ((X + 0.055) / 1.055)^2.4 for X ≥ 0.04045, X / 12.92 below.
            var p: [cmsFloat64Number] = [2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045]
            return cmsBuildParametricToneCurve(nil, 4, &p)
        case .bt709:
            // Y = ((X + 0.099) / 1.099)^(1/0.45) for X ≥ 0.081, X / 4.5 below.
            var p: [cmsFloat64Number] = [1 / 0.45, 1 / 1.099, 0.099 / 1.099, 1 / 4.5, 0.081]
            return cmsBuildParametricToneCurve(nil, 4, &p)
        case .gamma(let exponent):
            var p: [cmsFloat64Number] = [exponent]
            return cmsBuildParametricToneCurve(nil, 1, &p)
        }
    }

    /// sRGB's encoding (linear → encoded), for the output tables.
    static func encodeSRGB(_ linear: Double) -> Double {
        guard linear > 0.0031308 else { return max(0, linear) * 12.92 }
        return 1.055 * pow(min(linear, 1), 1 / 2.4) - 0.055
    }

    /// sRGB's decoding (encoded → linear).
    static func decodeSRGB(_ encoded: Double) -> Double {
        guard encoded > 0.04045 else { return encoded / 12.92 }
        return pow((encoded + 0.055) / 1.055, 2.4)
    }
}

/// The colorimetry of the H.273 code points the library converts.
enum CICPColorimetry {
    /// Primaries and white point for a `ColourPrimaries` code point, `nil` when unknown.
    static func primaries(_ code: UInt16) -> Chromaticities? {
        switch code {
        case 1, 2: return .sRGB
        case 9:  // BT.2020
            return Chromaticities(
                whiteX: 0.3127, whiteY: 0.3290, redX: 0.708, redY: 0.292, greenX: 0.170, greenY: 0.797,
                blueX: 0.131, blueY: 0.046)
        case 11:  // DCI-P3 (DCI white)
            return Chromaticities(
                whiteX: 0.314, whiteY: 0.351, redX: 0.680, redY: 0.320, greenX: 0.265, greenY: 0.690,
                blueX: 0.150, blueY: 0.060)
        case 12:  // Display P3 (P3 primaries, D65)
            return Chromaticities(
                whiteX: 0.3127, whiteY: 0.3290, redX: 0.680, redY: 0.320, greenX: 0.265, greenY: 0.690,
                blueX: 0.150, blueY: 0.060)
        default: return nil
        }
    }

    /// The transfer for a `TransferCharacteristics` code point, `nil` for unknown ones and for
    /// PQ (16) and HLG (18), which ``HDRToSDRTransform`` tone-maps instead.
    static func transfer(_ code: UInt16) -> TransferCurve? {
        switch code {
        case 2, 13: return .sRGB
        case 1, 6, 14, 15: return .bt709
        case 4: return .gamma(2.2)
        case 5: return .gamma(2.8)
        case 8: return .gamma(1)
        default: return nil
        }
    }
}
