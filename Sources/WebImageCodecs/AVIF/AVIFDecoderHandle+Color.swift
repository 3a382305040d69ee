import CAVIF
import Foundation
import WebImageCore

extension AVIFDecoderHandle {
    /// The colour description of the container after parsing (G-1): the `colr` `prof`/
    /// `rICC` ICC profile when there is one (it takes precedence, as in libavif and browsers),
    /// else the `nclx` code points, unless they say sRGB or "unspecified" (untagged).
    var colorProfile: ColorProfile? {
        guard let image = decoderImage else { return nil }
        let icc = image.pointee.icc
        if icc.size > 0, let bytes = icc.data,
            let profile = ColorProfile(icc: Data(bytes: bytes, count: icc.size)), profile.colorModel != .cmyk
        {
            return profile
        }
        let cicp = CICP(
            colorPrimaries: image.pointee.colorPrimaries, transferCharacteristics: image.pointee.transferCharacteristics,
            matrixCoefficients: image.pointee.matrixCoefficients,
            fullRange: image.pointee.yuvRange == AVIF_RANGE_FULL)
        return cicp.isSRGB ? nil : ColorProfile(kind: .cicp(cicp))
    }
}
