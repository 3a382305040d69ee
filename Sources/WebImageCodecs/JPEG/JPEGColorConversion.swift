/// Colour conversions TurboJPEG leaves to the caller.
enum JPEGColorConversion {
    /// Converts CMYK pixels (as TurboJPEG's `TJPF_CMYK` delivers them, 4 bytes per pixel) to
    /// opaque RGBA in place.
    ///
    /// Files with an Adobe APP14 marker (Photoshop and most writers, including every YCCK file)
    /// store CMYK inverted (0 = full ink), so R = C′·K′/255 on the stored values; files without
    /// it store plain CMYK, so R = (255 − C)(255 − K)/255. This is the multiplicative
    /// conversion browsers and Pillow use (no colour management).
    static func convertCMYKToRGBA(_ pixels: UnsafeMutableBufferPointer<UInt8>, inverted: Bool) {
        var i = 0
        let end = pixels.count - 3
        while i < end {
            var c = UInt32(pixels[i])
            var m = UInt32(pixels[i + 1])
            var y = UInt32(pixels[i + 2])
            var k = UInt32(pixels[i + 3])
            if !inverted {
                c = 255 - c
                m = 255 - m
                y = 255 - y
                k = 255 - k
            }
            pixels[i] = UInt8((c * k + 127) / 255)
            pixels[i + 1] = UInt8((m * k + 127) / 255)
            pixels[i + 2] = UInt8((y * k + 127) / 255)
            pixels[i + 3] = 255
            i += 4
        }
    }
}
