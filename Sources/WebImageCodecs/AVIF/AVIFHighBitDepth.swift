import CAVIF
import WebImageCore

/// How an RGBA16 image is written as AVIF (SPEC H-1): at 10 or 12 bits (libavif scales the
/// 16-bit samples down, rounding), with the image's CICP code points in the `colr` `nclx` box
/// (PQ stays 9/16, HLG 9/18) when it has a CICP description.
struct AVIFHighBitDepth {
    /// 10 or 12.
    var depth: Int
    /// The image's code points, `nil` when it has none (untagged, ICC).
    var cicp: CICP?

    /// Sets `image`'s primaries and transfer from `cicp` (the matrix stays the encoder's own:
    /// the YUV conversion uses it and the `nclx` box records it).
    static func describe(_ image: UnsafeMutablePointer<avifImage>, _ cicp: CICP) {
        image.pointee.colorPrimaries = avifColorPrimaries(cicp.colorPrimaries)
        image.pointee.transferCharacteristics = avifTransferCharacteristics(cicp.transferCharacteristics)
    }
}

extension Image {
    /// The CICP code points of the image's colour description, `nil` for other kinds.
    var cicp: CICP? {
        if case .cicp(let cicp)? = colorProfile?.kind { return cicp }
        return nil
    }
}
