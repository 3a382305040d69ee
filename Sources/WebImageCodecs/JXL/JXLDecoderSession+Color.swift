import CJXL
import Foundation
import WebImageCore

extension JXLDecoderSession {
    /// The colour description of the pixels the decoder outputs (G-1), to be asked at
    /// `JXL_DEC_COLOR_ENCODING`: `nil` for sRGB (and grey with sRGB's transfer), CICP code
    /// points for PQ/HLG (tone-mapped to SDR, H-4), else the ICC profile (the attached one, or
    /// libjxl's rendering of the encoded colour space).
    func colorProfile() -> ColorProfile? {
        var encoding = JxlColorEncoding()
        if JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &encoding) == JXL_DEC_SUCCESS {
            let d65 = encoding.white_point == JXL_WHITE_POINT_D65
            let sRGBTransfer = encoding.transfer_function == JXL_TRANSFER_FUNCTION_SRGB
            if encoding.color_space == JXL_COLOR_SPACE_RGB, d65, sRGBTransfer, encoding.primaries == JXL_PRIMARIES_SRGB {
                return nil
            }
            if encoding.color_space == JXL_COLOR_SPACE_GRAY, d65, sRGBTransfer { return nil }
            let transfer = encoding.transfer_function
            if transfer == JXL_TRANSFER_FUNCTION_PQ || transfer == JXL_TRANSFER_FUNCTION_HLG {
                return ColorProfile(kind: .cicp(CICP(
                    colorPrimaries: UInt16(truncatingIfNeeded: encoding.primaries.rawValue),
                    transferCharacteristics: UInt16(truncatingIfNeeded: transfer.rawValue), matrixCoefficients: 0,
                    fullRange: true)))
            }
        }
        var size = 0
        guard JxlDecoderGetICCProfileSize(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS,
            size > 0, size <= 64 * 1024 * 1024
        else { return nil }
        var bytes = [UInt8](repeating: 0, count: size)
        guard JxlDecoderGetColorAsICCProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &bytes, size) == JXL_DEC_SUCCESS
        else { return nil }
        return ColorProfile(icc: Data(bytes)).flatMap { $0.colorModel == .cmyk ? nil : $0 }
    }
}
