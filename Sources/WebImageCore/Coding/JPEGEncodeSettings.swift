/// How the JPEG encoder writes its file (imgproxy's `IMGPROXY_JPEG_*` settings and
/// `jpeg_options`), part of ``EncodeOptions``.
///
/// libjpeg-turbo (through TurboJPEG) honours `progressive` and `noSubsample`. mozjpeg's trellis
/// quantisation, overshoot deringing, scan optimisation and its other quantisation tables are
/// not in libjpeg-turbo: the service accepts those options (as imgproxy does when libvips lacks
/// them) and writes the same file without them.
public struct JPEGEncodeSettings: Sendable, Hashable {
    /// A progressive JPEG (several scans, coarse to fine; Huffman tables optimised), else
    /// baseline.
    public var progressive: Bool
    /// Full-resolution chroma (4:4:4) at every quality; otherwise 4:2:0 below quality 0.9 and
    /// 4:4:4 from it (libvips' automatic choice).
    public var noSubsample: Bool

    /// Settings: baseline and automatic chroma subsampling by default.
    public init(progressive: Bool = false, noSubsample: Bool = false) {
        self.progressive = progressive
        self.noSubsample = noSubsample
    }
}
