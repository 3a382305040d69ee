import Foundation

/// The two high-dynamic-range transfers of ITU-R BT.2100 and the reference levels of ITU-R
/// BT.2408 that the SDR rendition is anchored to (H-4). Plain functions of one value; the
/// per-pixel work goes through the tables of ``HDRToSDRTransform``.
enum HDRTransfer {
    /// HDR reference white (BT.2408 §2.1): diffuse white, in cd/m². It becomes SDR white.
    static let referenceWhite = 203.0
    /// The peak a PQ signal can code, in cd/m² (the top of the roll-off for PQ sources).
    static let pqPeak = 10_000.0
    /// The nominal peak display luminance the HLG OOTF is applied for, in cd/m² (BT.2100's
    /// reference display). At this peak the system gamma is exactly 1.2.
    static let hlgNominalPeak = 1_000.0
    /// The HLG system gamma at ``hlgNominalPeak``: 1.2 + 0.42·log10(Lw / 1000) (BT.2100 note 5f).
    static let hlgSystemGamma = 1.2 + 0.42 * log10(hlgNominalPeak / 1_000)

    /// PQ's EOTF (BT.2100 table 4, SMPTE ST 2084): the display luminance in cd/m² of the
    /// non-linear signal `encoded` (0…1).
    static func pqToLuminance(_ encoded: Double) -> Double {
        let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
        let p = pow(min(max(encoded, 0), 1), 1 / m2)
        return pqPeak * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
    }

    /// PQ's inverse EOTF: the signal (0…1) that codes `luminance` cd/m².
    static func luminanceToPQ(_ luminance: Double) -> Double {
        let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
        let y = pow(min(max(luminance / pqPeak, 0), 1), m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    /// HLG's inverse OETF (BT.2100 table 5): normalised scene light (0…1) of the signal
    /// `encoded` (0…1).
    static func hlgToScene(_ encoded: Double) -> Double {
        let a = 0.17883277, b = 1 - 4 * 0.17883277, c = 0.5 - 0.17883277 * log(4 * 0.17883277)
        let e = min(max(encoded, 0), 1)
        return e <= 0.5 ? e * e / 3 : (exp((e - c) / a) + b) / 12
    }

    /// HLG's OETF: the signal (0…1) of normalised scene light `scene` (0…1).
    static func sceneToHLG(_ scene: Double) -> Double {
        let a = 0.17883277, b = 1 - 4 * 0.17883277, c = 0.5 - 0.17883277 * log(4 * 0.17883277)
        let e = min(max(scene, 0), 1)
        return e <= 1.0 / 12 ? (3 * e).squareRoot() : a * log(12 * e - b) + c
    }
}
