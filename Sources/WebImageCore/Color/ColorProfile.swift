import Foundation

/// How an image's pixel values are to be read as colours: the colour description its file
/// carries (G-1).
///
/// `nil` where a ``ColorProfile`` is expected means *untagged*, which every consumer reads as
/// sRGB. A profile is a small value: the ICC bytes are a `Data`, shared by reference when the
/// value is copied, so images, metadata and caches can carry it freely.
///
/// The kinds follow what formats store:
/// - `.icc`: an embedded ICC profile (JPEG `APP2`, PNG `iCCP`, WebP `ICCP`, TIFF tag
///   34675, AVIF/HEIC `colr` `prof`/`rICC`).
/// - `.sRGB`: a file that declares sRGB without a profile (PNG `sRGB` chunk).
/// - `.cicp`: coded code points (PNG `cICP`, AVIF/HEIC `colr` `nclx`).
/// - `.gamma`: PNG `gAMA`, with `cHRM` when present.
public struct ColorProfile: Sendable, Hashable, CustomStringConvertible {
    /// What the file stores.
    public enum Kind: Sendable, Hashable {
        /// An ICC profile's bytes.
        case icc(Data)
        /// Declared sRGB, without a profile.
        case sRGB
        /// Coding-independent code points (ITU-T H.273).
        case cicp(CICP)
        /// A decoding gamma as PNG's `gAMA` stores it (the *encoding* exponent, e.g. 0.45455),
        /// with the primaries and white point of `cHRM` when the file has one.
        case gamma(Double, chromaticities: Chromaticities?)
    }

    /// What the file stores.
    public let kind: Kind
    /// A human-readable name: an ICC profile's description tag, else a name for the coded
    /// description (`"sRGB"`, `"Display P3 (CICP 12/13)"`, `"gamma 0.45455"`).
    public let name: String
    /// The colour model of the pixel values the description applies to.
    public let colorModel: ColorModel

    /// A profile from an ICC profile's bytes. `nil` when `data` is not a plausible ICC profile
    /// (shorter than the 132-byte header and tag count, or without the `acsp` signature).
    public init?(icc data: Data) {
        guard let header = ICCProfileHeader(data) else { return nil }
        self.kind = .icc(data)
        self.name = header.description ?? "ICC profile"
        self.colorModel = header.colorModel
    }

    /// A coded (non-ICC) description.
    public init(kind: Kind) {
        self.kind = kind
        switch kind {
        case .icc(let data):
            let header = ICCProfileHeader(data)
            self.name = header?.description ?? "ICC profile"
            self.colorModel = header?.colorModel ?? .rgb
        case .sRGB:
            self.name = "sRGB"
            self.colorModel = .rgb
        case .cicp(let cicp):
            self.name = cicp.name
            self.colorModel = .rgb
        case .gamma(let gamma, let chromaticities):
            let value = (gamma * 100_000).rounded() / 100_000
            self.name = chromaticities == nil ? "gamma \(value)" : "gamma \(value) with chromaticities"
            self.colorModel = .rgb
        }
    }

    /// The ICC profile's bytes, when the description is one.
    public var iccData: Data? {
        if case .icc(let data) = kind { return data }
        return nil
    }

    public var description: String { name }
}

/// The colour model of pixel values (an ICC profile's data colour space).
public enum ColorModel: String, Sendable, Hashable {
    /// Red, green, blue.
    case rgb
    /// One grey channel.
    case gray
    /// Cyan, magenta, yellow, black (JPEG CMYK/YCCK).
    case cmyk
    /// Anything else an ICC profile can describe (Lab, XYZ, n-colour).
    case other
}

/// Coding-independent code points (ITU-T H.273), as PNG `cICP` and AVIF/HEIC `nclx` store them.
public struct CICP: Sendable, Hashable {
    /// Colour primaries (1 = BT.709/sRGB, 9 = BT.2020, 12 = Display P3).
    public var colorPrimaries: UInt16
    /// Transfer characteristics (13 = sRGB, 16 = PQ, 18 = HLG, 8 = linear).
    public var transferCharacteristics: UInt16
    /// Matrix coefficients (0 = identity/RGB).
    public var matrixCoefficients: UInt16
    /// Whether the values use the full range.
    public var fullRange: Bool

    public init(colorPrimaries: UInt16, transferCharacteristics: UInt16, matrixCoefficients: UInt16, fullRange: Bool) {
        self.colorPrimaries = colorPrimaries
        self.transferCharacteristics = transferCharacteristics
        self.matrixCoefficients = matrixCoefficients
        self.fullRange = fullRange
    }

    /// sRGB: BT.709 primaries with the sRGB transfer (or "unspecified", 2, for either).
    public var isSRGB: Bool {
        [1, 2].contains(colorPrimaries) && [13, 2].contains(transferCharacteristics)
    }

    /// Whether the transfer is a high-dynamic-range one (PQ or HLG).
    public var isHDR: Bool { transferCharacteristics == 16 || transferCharacteristics == 18 }

    /// A name for `webimage info`: a well-known space when there is one, plus the code points.
    public var name: String {
        let codes = "CICP \(colorPrimaries)/\(transferCharacteristics)"
        switch (colorPrimaries, transferCharacteristics) {
        case (1, 13), (2, 13), (1, 2): return "sRGB (\(codes))"
        case (12, 13): return "Display P3 (\(codes))"
        case (9, 16): return "BT.2100 PQ (\(codes))"
        case (9, 18): return "BT.2100 HLG (\(codes))"
        case (9, _): return "BT.2020 (\(codes))"
        default: return codes
        }
    }
}

/// CIE xy chromaticities of a white point and three primaries (PNG `cHRM`).
public struct Chromaticities: Sendable, Hashable {
    public var whiteX: Double, whiteY: Double
    public var redX: Double, redY: Double
    public var greenX: Double, greenY: Double
    public var blueX: Double, blueY: Double

    public init(
        whiteX: Double, whiteY: Double, redX: Double, redY: Double,
        greenX: Double, greenY: Double, blueX: Double, blueY: Double
    ) {
        self.whiteX = whiteX
        self.whiteY = whiteY
        self.redX = redX
        self.redY = redY
        self.greenX = greenX
        self.greenY = greenY
        self.blueX = blueX
        self.blueY = blueY
    }

    /// sRGB's (BT.709 primaries, D65 white), the values PNG writers put in `cHRM` for sRGB.
    public static let sRGB = Chromaticities(
        whiteX: 0.3127, whiteY: 0.3290, redX: 0.64, redY: 0.33, greenX: 0.30, greenY: 0.60, blueX: 0.15, blueY: 0.06)

    /// Whether every coordinate is within `tolerance` of `other`'s.
    public func isClose(to other: Chromaticities, tolerance: Double = 0.0015) -> Bool {
        let a = [whiteX, whiteY, redX, redY, greenX, greenY, blueX, blueY]
        let b = [other.whiteX, other.whiteY, other.redX, other.redY, other.greenX, other.greenY, other.blueX, other.blueY]
        return zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
    }
}
