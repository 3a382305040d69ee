/// How the JPEG encoder writes its file (imgproxy's `IMGPROXY_JPEG_*` settings and
/// `jpeg_options`), part of ``EncodeOptions``.
///
/// libjpeg-turbo honours `progressive`, `noSubsample` and `quantTable` (mozjpeg's table sets,
/// written through libjpeg's API). mozjpeg's trellis quantisation, overshoot deringing and scan
/// optimisation are not in libjpeg-turbo: the service accepts those options (as imgproxy does
/// when libvips lacks them) and writes the same file without them.
public struct JPEGEncodeSettings: Sendable, Hashable {
    /// A progressive JPEG (several scans, coarse to fine; Huffman tables optimised), else
    /// baseline.
    public var progressive: Bool
    /// Full-resolution chroma (4:4:4) at every quality; otherwise 4:2:0 below quality 0.9 and
    /// 4:4:4 from it (libvips' automatic choice).
    public var noSubsample: Bool
    /// The quantisation table set, mozjpeg's (and imgproxy's `quant_table`) numbers 0…8, scaled
    /// by libjpeg's quality curve and limited to 1…255 (baseline JPEG):
    /// 0 JPEG Annex K (the default), 1 flat (16 for every frequency at quality 50), 2 tuned for
    /// MS-SSIM, 3 ImageMagick's by N. Robidoux, 4 tuned for PSNR-HVS, 5 Klein, Silverstein and
    /// Carney (1992), 6 Watson, Taylor and Borthwick (1997), 7 Ahumada, Watson, Peterson and
    /// Peterson (1993), 8 Peterson, Ahumada and Watson (1993). Another number fails the encode.
    /// Greyscale gain maps always use table 0.
    public var quantTable: Int

    /// Flat quantisation tables: ``quantTable`` 1 (setting it false sets table 0).
    public var flatQuantTable: Bool {
        get { quantTable == 1 }
        set { quantTable = newValue ? 1 : 0 }
    }

    /// Settings: baseline, automatic chroma subsampling and the Annex K tables by default;
    /// `flatQuantTable` is table 1, else `quantTable` applies.
    public init(progressive: Bool = false, noSubsample: Bool = false, flatQuantTable: Bool = false, quantTable: Int = 0) {
        self.progressive = progressive
        self.noSubsample = noSubsample
        self.quantTable = flatQuantTable ? 1 : quantTable
    }
}
