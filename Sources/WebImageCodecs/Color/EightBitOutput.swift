import WebImageCore

/// What an encoder that writes 8 bits a channel does with a 16-bit image (SPEC H-1): a PQ or
/// HLG picture is tone-mapped to SDR sRGB from its 16-bit samples (H-4; the profile is
/// dropped); anything else is rounded to the nearest 8-bit value
/// (``/WebImageCore/PixelBuffer/convertedToRGBA8()``) with its colour description kept.
enum EightBitOutput {
    static func prepare(_ image: Image) -> Image {
        guard image.pixelFormat == .rgba16 else { return image }
        guard case .cicp(let cicp)? = image.colorProfile?.kind,
            let transform = HDRTransformCache.shared.transform(for: cicp, bits: 16)
        else { return image.convertedToRGBA8() }
        let mapped = image.mappingFrames { pixels in
            let wide = pixels.convertedToRGBA16()
            return wide.withSamples16 { samples in
                PixelBuffer.make(width: wide.width, height: wide.height) { out in
                    transform.apply(samples.baseAddress!, out.baseAddress!, count: wide.width * wide.height)
                }
            }
        }
        return (mapped ?? image.convertedToRGBA8()).replacing(colorProfile: nil)
    }
}
