/// What decoding does with a source's colour description (G-2, G-3).
public enum ColorManagement: Sendable, Hashable {
    /// Convert tagged images to sRGB (relative colorimetric), so that everything after the
    /// decoder works in sRGB and writes untagged sRGB, which is what browsers assume. Untagged
    /// and sRGB(-equivalent) images are not touched. The result carries no profile.
    case convertToSRGB
    /// Keep the source's pixel values and attach its profile (``Image/colorProfile``); the
    /// JPEG, PNG and WebP encoders embed it.
    case preserve
    /// Ignore colour descriptions: pixels as stored, no profile attached (the library's
    /// behaviour before colour management).
    case ignore
}
