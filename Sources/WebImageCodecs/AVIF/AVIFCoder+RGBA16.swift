import WebImageCore

extension AVIFCoder {
    /// A 10- or 12-bit AVIF decoded to ``/WebImageCore/PixelFormat/rgba16`` (SPEC H-1): every
    /// frame at 16 bits, orientation and thumbnail size applied in 16 bits, the colour
    /// description (CICP or ICC, PQ and HLG included) attached as it is.
    func decodeHighBitDepth(
        _ handle: AVIFDecoderHandle, output: FrameOutput, count: Int, profile: ColorProfile?, options: DecodeOptions
    ) throws -> Image {
        try options.limits.checkBudget(frames: count, of: handle.canvasSize, format: .rgba16)
        var frames: [ImageFrame] = []
        frames.reserveCapacity(count)
        for index in 0..<count {
            let pixels = output.finish(try handle.frame16(at: index))
            frames.append(ImageFrame(pixels: pixels, duration: count > 1 ? handle.duration(ofFrame: index) : 0))
        }
        return Image(
            frames: frames, scale: options.imageScale, orientation: output.reportedOrientation, format: .avif, loopCount: 0,
            hasAlpha: handle.hasAlpha, colorProfile: profile, gainMap: nil)
    }
}
