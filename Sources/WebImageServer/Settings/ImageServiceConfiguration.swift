import Foundation
import WebImage

/// Everything the image service is configured with (SPEC V-1). Defaults are safe to expose to
/// the internet: public addresses only, limits on, no local files.
public struct ImageServiceConfiguration: Sendable {
    /// Key/salt pairs; empty = unsigned mode (any signature segment, e.g. `insecure`, accepted).
    public var keyPairs: [URLSigner.KeyPair] = []
    /// Bytes of HMAC kept in signatures (1…32).
    public var signatureSize = 32
    /// Named presets; `default` applies to every request.
    public var presets = PresetTable()
    /// Most pipelines one URL may chain with `/-/` (imgproxy's `MAX_CHAINED_PIPELINES`,
    /// presets' pipelines counted too); beyond, 400. 0 = no limit. Default 8.
    public var maxChainedPipelines = 8
    /// Source and result limits.
    public var limits = ProcessingLimits()
    /// `Cache-Control: public, max-age=` seconds.
    public var ttl = 31_536_000
    /// Negotiate WebP from `Accept` when no format is given.
    public var autoWebP = true
    /// Convert sources to sRGB and write results without a colour profile (imgproxy's
    /// `IMGPROXY_STRIP_COLOR_PROFILE`, default on); off, results keep the source's colours and
    /// embed its profile. The `strip_color_profile` (`scp`) URL option overrides it.
    public var stripColorProfile = true
    /// Keep a PQ or HLG source's HDR signal and bit depth in PNG, AVIF and JPEG XL results, and
    /// write JPEG results as SDR plus a gain map computed from it (imgproxy 4's
    /// `IMGPROXY_PRESERVE_HDR`, default off: results are tone-mapped to SDR). The
    /// `preserve_hdr` URL option overrides it.
    public var preserveHDR = false
    /// Negotiate AVIF from `Accept` when no format is given (before WebP).
    public var autoAVIF = true
    /// Negotiate JPEG XL from `Accept` when no format is given (before AVIF; imgproxy's
    /// `IMGPROXY_AUTO_JXL`, off by default).
    public var autoJXL = false
    /// JPEG XL encoding effort 1…9 (imgproxy's `IMGPROXY_JXL_EFFORT`, default 4).
    public var jxlEffort = 4
    /// libaom's speed for AVIF 0…9 (imgproxy's `IMGPROXY_AVIF_SPEED`); `nil` (default) = 9 for
    /// results up to 1.2 MP (quality lifted one quantizer step) and 8 above
    /// (`AVIFEncodeSettings`).
    public var avifSpeed: Int?
    /// AVIF chroma subsampling of requests whose `avif_options` leave it out (imgproxy's
    /// `IMGPROXY_AVIF_SUBSAMPLE`): `auto` by default, 4:2:0 below quality 90 and 4:4:4 from it.
    public var avifOptions = AVIFOptions()
    /// The source cache directory; `nil` = no source cache.
    public var cacheDirectory: URL?
    /// Bytes the source cache may hold; past it, the oldest entries are removed until it holds
    /// half (default 1 GiB; `0` = unbounded).
    public var cacheMaxSize = 1 << 30
    /// Seconds a source stays in the source cache after it was last written (default 7 days).
    public var cacheMaxAge: Double = 7 * 24 * 60 * 60
    /// Seconds a cached source is used without asking the origin; older entries are
    /// revalidated with their `ETag`/`Last-Modified` (a 304 keeps them).
    public var sourceRevalidateAfter = 60.0
    /// Root of `local://` sources; `nil` = `local://` refused.
    public var localRoot: URL?
    /// Source URL prefixes allowed; empty = any.
    public var allowedSourcePrefixes: [String] = []
    /// How `s3://bucket/key` sources are read (endpoint, region, credentials, allowed and
    /// denied buckets; `--use-s3`); `nil` (default) = `s3://` refused.
    public var s3: S3Configuration?
    /// Which resolved addresses sources may come from (SPEC R-1): public only by default.
    public var addressPolicy: AddressPolicy = .publicInternetOnly
    /// Renders running at once (default: the core count).
    public var workers = max(1, ProcessInfo.processInfo.activeProcessorCount)
    /// Requests allowed to wait for a worker; beyond it, 429.
    public var queue = 64
    /// Requests that may fetch their source while every worker is busy (each then holds its
    /// encoded source until it is rendered): at most `workers + fetchAhead` sources are held at
    /// once. `nil` (the default): as many as ``workers`` (``resolvedFetchAhead``), so each worker
    /// has its next source downloaded while it renders; `0` fetches a source only for a free
    /// worker, as imgproxy does, which holds at most `workers` sources but leaves a worker idle
    /// while its source downloads.
    public var fetchAhead: Int?
    /// Bytes of sources requests may hold at once, downloads in flight included (each counted
    /// at `limits.maxSourceBytes` until its source is here, then at its size); a request waits
    /// for room before it fetches. `nil` (the default): ``defaultSourceMemory``.
    public var maxSourceMemory: Int?
    /// Seconds a client is told to wait after a 429.
    public var retryAfter = 1
    /// Seconds a source download may take before 504.
    public var downloadTimeout = 10.0
    /// Seconds a request may take from fetch to encode (download, decode, process, encode
    /// together) before 504 (SPEC V-5).
    public var processingTimeout = 30.0
    /// Redirects followed for a source.
    public var maximumRedirects = 5
    /// Bytes of rendered results kept in memory (byte-bounded LRU).
    public var resultCacheBytes = 64 * 1024 * 1024
    /// Where rendered results are also kept, for other instances and restarts (SPEC V-12):
    /// looked up after the in-memory result cache and before the source is fetched; every render
    /// is queued to be written there without delaying its answer. `nil` = no result store.
    /// Instances sharing a store may differ in settings: those that change rendered bytes are
    /// part of every key (``outputFingerprint``), and an entry names the key it was written
    /// for, so a misplaced entry is a miss.
    public var resultStore: (any ResultStore)?
    /// Seconds a result-store lookup may take before the request goes on without it (writes get
    /// ten times as long, at least 10 s).
    public var resultStoreTimeout = 1.0
    /// Renders waiting to be written to the result store at most; more are dropped (counted in
    /// `webimage_result_store_dropped_total`).
    public var resultStoreQueue = 64
    /// Bytes of renders waiting to be written to the result store at most.
    public var resultStoreQueueBytes = 64 * 1024 * 1024
    /// Whether SVG answered as SVG (`raw`, `skip_processing`) is sanitised first: scripts,
    /// event handlers, foreign objects and external references removed. On
    /// by default, as imgproxy's `IMGPROXY_SANITIZE_SVG`.
    public var sanitizeSVG = true

    /// An image answered instead of an error when the source cannot be had (not found,
    /// origin failure or timeout, too large, not an image; SPEC V-7), processed with the
    /// request's options like the source would have been. `nil` = errors are answered as
    /// errors.
    public var fallbackImage: Data?
    /// The status of a fallback answer: 200 by default (as imgproxy), 0 = the error's own status.
    public var fallbackImageStatus = 200
    /// `Cache-Control: max-age` of a fallback answer; `nil` = ``ttl``.
    public var fallbackImageTTL: Int?

    /// The watermark image of the `watermark` (`wm`) option; `nil` (default) = none, and the
    /// option is accepted and does nothing (as in imgproxy).
    public var watermark: WatermarkSource?
    /// The watermark's base opacity, 0 … 1, multiplied by the option's (imgproxy's
    /// `IMGPROXY_WATERMARK_OPACITY`).
    public var watermarkOpacity = 1.0
    /// Seconds a watermark fetched from a URL (``WatermarkSource/url(_:)``) is used before it is
    /// fetched again.
    public var watermarkURLTTL = 3600.0

    /// Seconds an idle keep-alive connection is kept open (and the longest pause allowed while
    /// a request is being received). Longer than nginx's default upstream `keepalive_timeout`
    /// (60 s), so a proxy never reuses a connection the service is closing.
    public var keepAliveTimeout = 75.0
    /// Seconds a request's head may take to arrive whole after its first byte; then the
    /// connection is closed (a client that stops or trickles its headers holds it no longer).
    public var headerTimeout = 10.0
    /// Seconds a new connection may stay silent before its first byte; then it is closed (a
    /// client that opens connections and sends nothing holds the client slots no longer).
    public var firstByteTimeout = 5.0
    /// Client connections held at once; more wait in the listen backlog (imgproxy's
    /// `IMGPROXY_MAX_CLIENTS`, 2048). ``ImageServer/run(service:host:port:drainTimeout:logger:onListening:)``
    /// lowers it to what the file descriptor limit allows.
    public var maxClients = 2048

    /// The quality search of requests without an `aq` option (`autoquality-*` settings).
    public var autoquality = AutoQuality.none
    /// `autoquality-format-min`: the search's lowest quality per format.
    public var autoqualityFormatMin: [OutputFormat: Int] = [:]
    /// `autoquality-format-max`: the search's highest quality per format.
    public var autoqualityFormatMax: [OutputFormat: Int] = [:]

    /// Unsharp masking of requests that leave it out (`unsharp-masking-*` settings; imgproxy's
    /// `IMGPROXY_UNSHARP_MASKING_*`): mode `none` by default, weight 1, divider 24.
    public var unsharpMasking = UnsharpMasking.serviceDefault

    /// JPEG encoding of requests whose `jpeg_options` leave a field out (`jpeg-*` settings;
    /// imgproxy's `IMGPROXY_JPEG_*`); `nil` fields are the encoder's defaults (all off).
    public var jpegOptions = JPEGOptions()
    /// PNG encoding (`png-*` settings; imgproxy's `IMGPROXY_PNG_*`): not interlaced, not
    /// quantised, 256 colours when quantised.
    public var pngOptions = PNGOptions()
    /// WebP encoding (`webp-*` settings; imgproxy's `IMGPROXY_WEBP_*`): lossy, no smart
    /// subsampling, the default preset.
    public var webpOptions = WebPOptions()

    /// `format:best` (`best-format-*` settings).
    public var bestFormat = BestFormatSettings()

    /// The defaults.
    public init() {}

    /// The signer, or `nil` in unsigned mode.
    public var signer: URLSigner? {
        keyPairs.isEmpty ? nil : URLSigner(keyPairs: keyPairs, signatureSize: signatureSize)
    }
}
