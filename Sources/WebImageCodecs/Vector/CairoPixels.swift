import WebImageCore

/// The pixels cairo draws (`CAIRO_FORMAT_ARGB32`: native-endian 32-bit words, premultiplied)
/// turned into the library's RGBA8 with straight alpha, in place. Shared by the SVG and PDF
/// renderers, which draw straight into a ``PixelBuffer``'s storage.
enum CairoPixels {
    /// Converts `count` bytes of ARGB32 words to straight RGBA bytes.
    static func convertToStraightRGBA(_ out: UnsafeMutableBufferPointer<UInt8>) {
        var i = 0
        while i + 3 < out.count {
            #if _endian(big)
                let (a, r, g, b) = (out[i], out[i + 1], out[i + 2], out[i + 3])
            #else
                let (b, g, r, a) = (out[i], out[i + 1], out[i + 2], out[i + 3])
            #endif
            if a == 255 {
                (out[i], out[i + 1], out[i + 2], out[i + 3]) = (r, g, b, a)
            } else if a == 0 {
                (out[i], out[i + 1], out[i + 2], out[i + 3]) = (0, 0, 0, 0)
            } else {
                let alpha = Int(a)
                func straight(_ c: UInt8) -> UInt8 { UInt8(min(255, (Int(c) * 255 + alpha / 2) / alpha)) }
                (out[i], out[i + 1], out[i + 2], out[i + 3]) = (straight(r), straight(g), straight(b), a)
            }
            i += 4
        }
    }

    /// The size a vector image of `intrinsic` size is drawn at: the thumbnail size when one is
    /// asked for — larger or smaller than the intrinsic size, as a vector source draws crisply
    /// at any size — then ``/WebImageCore/DecodeOptions/scaleDownLargeImages``.
    static func renderSize(intrinsic: (width: Double, height: Double), options: DecodeOptions) -> PixelSize {
        var size = PixelSize(
            width: max(1, Int(min(intrinsic.width.rounded(.up), Double(Int32.max)))),
            height: max(1, Int(min(intrinsic.height.rounded(.up), Double(Int32.max)))))
        if let box = options.thumbnailPixelSize, box.width > 0, box.height > 0 {
            if options.preserveAspectRatio {
                let ratio = min(Double(box.width) / intrinsic.width, Double(box.height) / intrinsic.height)
                size = PixelSize(
                    width: max(1, min(box.width, Int((intrinsic.width * ratio).rounded()))),
                    height: max(1, min(box.height, Int((intrinsic.height * ratio).rounded()))))
            } else {
                size = box
            }
        }
        var unboxed = options
        unboxed.thumbnailPixelSize = nil
        return unboxed.targetSize(for: size)
    }
}
