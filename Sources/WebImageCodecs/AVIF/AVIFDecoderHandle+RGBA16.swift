import CAVIF
import WebImageCore

extension AVIFDecoderHandle {
    /// Bits a sample of the image as stored (8, 10 or 12).
    var storedDepth: Int { Int(decoderImage?.pointee.depth ?? 8) }

    /// Frame `index` as ``/WebImageCore/PixelFormat/rgba16``: libavif converts YUV to RGB at 16
    /// bits, scaling the stored 10- or 12-bit range to 0…65535. The budget counts 8 bytes a pixel,
    /// checked before the buffer is allocated.
    func frame16(at index: Int) throws -> PixelBuffer {
        let (image, size) = try decodedImage(at: index)
        try limits.checkBudget(frames: 1, of: size, format: .rgba16)
        return try PixelBuffer.make16(width: size.width, height: size.height) { out in
            var rgb = avifRGBImage()
            avifRGBImageSetDefaults(&rgb, image)
            rgb.format = AVIF_RGB_FORMAT_RGBA
            rgb.depth = 16
            rgb.pixels = UnsafeMutableRawPointer(out.baseAddress!).assumingMemoryBound(to: UInt8.self)
            rgb.rowBytes = UInt32(size.width * PixelFormat.rgba16.bytesPerPixel)
            try Self.check(avifImageYUVToRGB(image, &rgb))
        }
    }
}
