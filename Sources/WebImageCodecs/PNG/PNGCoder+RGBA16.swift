import WebImageCore

extension PNGCoder {
    /// A still 16-bit PNG decoded at 16 bits when the options ask for
    /// ``/WebImageCore/PixelFormat/rgba16`` (SPEC H-1): orientation and thumbnail size applied in
    /// 16 bits, the colour description (`cICP`, `iCCP`, …) attached as it is, not converted.
    /// `nil` for 8-bit and animated PNGs and for 8-bit requests: the caller decodes them as usual.
    func decodeHighBitDepth(_ bytes: UnsafeRawBufferPointer, layout: PNGLayout, options: DecodeOptions) throws -> Image? {
        guard options.decodedPixelFormat == .rgba16, layout.header.bitDepth == 16, layout.animation == nil else {
            return nil
        }
        let output = PNGOutput(layout: layout, options: options)
        let decoded = try SPNGDecoding.decode16(bytes, limits: options.limits)
        let image = Image(
            pixels: output.finish(decoded.pixels), scale: options.imageScale,
            orientation: output.reportedOrientation, format: .png, hasAlpha: decoded.hasAlpha)
        return image.replacing(colorProfile: colorProfile(bytes, options))
    }
}
