/// How the JPEG encoder writes its file (imgproxy's `IMGPROXY_JPEG_*` settings and
/// `jpeg_options`), part of ``EncodeOptions``.
///
/// libjpeg-turbo honours `progressive`, `noSubsample` and `flatQuantTable` (mozjpeg's table 1).
/// mozjpeg's trellis quantisation, overshoot deringing, scan optimisation and its tables 2–8 are
/// not in libjpeg-turbo: the service accepts those options (as imgproxy does when libvips lacks
/// them) and writes the same file without them.
public struct JPEGEncodeSettings: Sendable, Hashable {
    /// A progressive JPEG (several scans, coarse to fine; Huffman tables optimised), else
    /// baseline.
    public var progressive: Bool
    /// Full-resolution chroma (4:4:4) at every quality; otherwise 4:2:0 below quality 0.9 and
    /// 4:4:4 from it (libvips' automatic choice).
    public var noSubsample: Bool
    /// Flat quantisation tables (one step for every frequency, 16 at quality 50, scaled by
    /// libjpeg's quality curve: mozjpeg's and imgproxy's table 1) instead of the JPEG Annex K
    /// tables; written through libjpeg's own API. Larger files at a quality, with fine detail
    /// (text, line art) kept better.
    public var flatQuantTable: Bool

    /// Settings: baseline, automatic chroma subsampling and the Annex K tables by default.
    public init(progressive: Bool = false, noSubsample: Bool = false, flatQuantTable: Bool = false) {
        self.progressive = progressive
        self.noSubsample = noSubsample
        self.flatQuantTable = flatQuantTable
    }
}
