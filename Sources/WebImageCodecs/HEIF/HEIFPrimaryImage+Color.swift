import CHEIF
import Foundation
import WebImageCore

extension HEIFPrimaryImage {
    /// The primary image's colour description (G-1): its `colr` ICC profile (`prof` or
    /// `rICC`) when there is one, else its `nclx` code points unless they say sRGB or
    /// "unspecified" (untagged).
    var colorProfile: ColorProfile? {
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        if size > 0, size <= 64 * 1024 * 1024 {
            var bytes = [UInt8](repeating: 0, count: size)
            let error = bytes.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
            if error.code == heif_error_Ok, let profile = ColorProfile(icc: Data(bytes)), profile.colorModel != .cmyk {
                return profile
            }
        }
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        let error = heif_image_handle_get_nclx_color_profile(handle, &nclx)
        guard error.code == heif_error_Ok, let nclx else { return nil }
        defer { heif_nclx_color_profile_free(nclx) }
        let cicp = CICP(
            colorPrimaries: UInt16(truncatingIfNeeded: nclx.pointee.color_primaries.rawValue),
            transferCharacteristics: UInt16(truncatingIfNeeded: nclx.pointee.transfer_characteristics.rawValue),
            matrixCoefficients: UInt16(truncatingIfNeeded: nclx.pointee.matrix_coefficients.rawValue),
            fullRange: nclx.pointee.full_range_flag != 0)
        return cicp.isSRGB ? nil : ColorProfile(kind: .cicp(cicp))
    }
}
