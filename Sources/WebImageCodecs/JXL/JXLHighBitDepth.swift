import CJXL
import WebImageCore

/// JPEG XL output at 16 bits a sample (SPEC H-1, H-5): an RGBA16 still is written with
/// `bits_per_sample` 16 and its colour description — CICP primaries and transfer as libjxl's
/// enumerated colour encoding (so PQ stays PQ and HLG stays HLG), or its ICC profile — instead
/// of being converted to 8 bits.
enum JXLHighBitDepth {
    /// Whether `image` is written at 16 bits: RGBA16, a still (or only its first frame kept), and
    /// a colour description libjxl can state (none, ICC, or CICP that ``colorEncoding(_:)``
    /// maps).
    static func keeps(_ image: Image, options: EncodeOptions) -> Bool {
        guard image.pixelFormat == .rgba16, image.frames.count == 1 || !options.keepAnimation else { return false }
        if case .cicp(let cicp)? = image.colorProfile?.kind { return colorEncoding(cicp) != nil }
        return true
    }

    /// libjxl's colour encoding for CICP code points: primaries BT.709 (1), BT.2020 (9) or
    /// Display P3 (12), D65; transfer BT.709 (1, 6, 14, 15), linear (8), sRGB (13), PQ (16) or
    /// HLG (18). `nil` for anything else.
    static func colorEncoding(_ cicp: CICP) -> JxlColorEncoding? {
        var color = JxlColorEncoding()
        JxlColorEncodingSetToSRGB(&color, JXL_FALSE)
        switch cicp.colorPrimaries {
        case 1: color.primaries = JXL_PRIMARIES_SRGB
        case 9: color.primaries = JXL_PRIMARIES_2100
        case 12: color.primaries = JXL_PRIMARIES_P3
        default: return nil
        }
        switch cicp.transferCharacteristics {
        case 1, 6, 14, 15: color.transfer_function = JXL_TRANSFER_FUNCTION_709
        case 8: color.transfer_function = JXL_TRANSFER_FUNCTION_LINEAR
        case 13: color.transfer_function = JXL_TRANSFER_FUNCTION_SRGB
        case 16: color.transfer_function = JXL_TRANSFER_FUNCTION_PQ
        case 18: color.transfer_function = JXL_TRANSFER_FUNCTION_HLG
        default: return nil
        }
        color.white_point = JXL_WHITE_POINT_D65
        color.rendering_intent = JXL_RENDERING_INTENT_RELATIVE
        return color
    }

    /// A 16-bit buffer's samples for libjxl: RGBA as stored, or packed RGB without alpha.
    static func samples(_ pixels: PixelBuffer, alpha: Bool) -> [UInt16] {
        pixels.withSamples16 { rgba in
            if alpha { return Array(rgba) }
            let count = pixels.width * pixels.height
            return [UInt16](unsafeUninitializedCapacity: count * 3) { out, initialized in
                for i in 0..<count {
                    out[i * 3] = rgba[i * 4]
                    out[i * 3 + 1] = rgba[i * 4 + 1]
                    out[i * 3 + 2] = rgba[i * 4 + 2]
                }
                initialized = count * 3
            }
        }
    }
}
