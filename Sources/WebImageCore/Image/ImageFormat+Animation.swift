import Foundation

extension ImageFormat {
    /// Whether `data` holds an animation, answered cheaply from the container structure without
    /// decoding pixels (SPEC I-3):
    ///
    /// - PNG: an `acTL` chunk before the first `IDAT` declaring more than one frame (APNG).
    /// - GIF: more than one image descriptor, found by walking the blocks (LZW data is skipped,
    ///   not decompressed).
    /// - WebP: the animation flag of the `VP8X` chunk.
    /// - AVIF: the `avis` brand in `ftyp`; HEIF image sequences (`msf1`, `hevs`) likewise.
    ///
    /// Every other format, and anything malformed, answers `false`. The scan is bounded by the
    /// data's length and never allocates more than a few bytes.
    public static func isAnimated(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            let bytes = HeaderBytes(raw)
            switch detect(raw) {
            case .png: return (PNGHeader.scan(bytes)?.frameCount ?? 1) > 1
            case .gif: return (GIFHeader.scan(bytes, stopAfterFrames: 2)?.frameCount ?? 0) > 1
            case .webp: return WebPHeader.hasAnimationFlag(bytes)
            case .avif, .heic, .heif: return ISOBMFFHeader.isSequence(bytes)
            default: return false
            }
        }
    }
}
