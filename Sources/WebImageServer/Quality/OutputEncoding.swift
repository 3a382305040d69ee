import Foundation
import WebImage

/// The encode at the end of a request's pipeline: the format (or, for `best`, the candidate
/// formats), the request's qualities and byte limit, and the quality search (``AutoQuality``)
/// in force, the request's or the service's.
struct OutputEncoding: Sendable {
    /// The format; for `best`, the first candidate.
    let format: OutputFormat
    /// The `best` candidates (``BestFormatSettings/candidates(for:)``); empty for one format.
    var candidates: [OutputFormat] = []
    /// The `best` settings, when ``candidates`` is not empty.
    var best = BestFormatSettings()
    /// The request's `q`, 0 for none.
    let requestQuality: Int
    /// The request's `fq`.
    let formatQuality: [OutputFormat: Int]
    /// `max_bytes`, 0 for none.
    let maxBytes: Int
    /// The search; for a request without `aq`, the service's, bounded per format by ``formatMin``/``formatMax``.
    var autoquality: AutoQuality
    var formatMin: [OutputFormat: Int] = [:]
    var formatMax: [OutputFormat: Int] = [:]
    let coders: CodersManager
    /// The `avif-speed` setting (`nil`: chosen by result size, `AVIFEncodeSettings`).
    var avifSpeed: Int?
    /// The JPEG, PNG and WebP encoder settings: the request's `jpeg_options`, `png_options` and
    /// `webp_options` over the service's.
    var jpeg = JPEGEncodeSettings()
    var png = PNGEncodeSettings()
    var webp = WebPEncodeSettings()
    /// AVIF chroma subsampling: the request's `avif_options` over the `avif-subsample` setting
    /// (`nil`: neither sets it, `auto`).
    var avifSubsampling: AVIFEncodeSettings.ChromaSubsampling?
    /// The `jxl-effort` setting.
    var jxlEffort = 4

    /// The quality without a search: the request's `q`, else its `fq` for the format, else the
    /// service's default for the format.
    func quality(for format: OutputFormat) -> Int {
        requestQuality > 0 ? requestQuality : (formatQuality[format] ?? ImageProcessor.defaultQuality(for: format))
    }

    /// The search for `format`, with the service's per-format bounds.
    func autoquality(for format: OutputFormat) -> AutoQuality {
        var search = autoquality
        search.minQuality = formatMin[format] ?? search.minQuality
        search.maxQuality = max(search.minQuality, formatMax[format] ?? search.maxQuality)
        return search
    }

    /// The quality without a search for the single format.
    var quality: Int { quality(for: format) }

    /// `image` encoded as `format` at `quality`.
    func encode(_ image: Image, as format: OutputFormat, quality: Int) throws(ImageServiceError) -> Data {
        var options = EncodeOptions(
            quality: Double(quality) / 100, maxFileSize: maxBytes > 0 ? maxBytes : nil, keepAnimation: format.isAnimatable)
        options.avif = AVIFEncodeSettings(speed: avifSpeed, subsampling: avifSubsampling ?? .auto)
        options.jxlEffort = jxlEffort
        options.jpeg = jpeg
        options.png = png
        options.webp = webp
        do {
            return try coders.encode(image, format: format.imageFormat, options: options)
        } catch WebImageError.cancelled {
            throw .timedOut
        } catch {
            throw .unprocessable("encoding \(format.rawValue) failed")
        }
    }

    /// `image` encoded as the single format at `quality`.
    func encode(_ image: Image, quality: Int) throws(ImageServiceError) -> Data {
        try encode(image, as: format, quality: quality)
    }

    /// Whether a search applies to `format`: a method other than `none`, and a lossy format.
    func searches(_ format: OutputFormat) -> Bool {
        autoquality.method != .none && format.isLossy
    }

    /// Whether a search applies to the single format.
    var searches: Bool { searches(format) }
}

extension OutputFormat {
    /// JPEG, WebP and AVIF: the formats whose quality trades bytes for fidelity.
    var isLossy: Bool { self == .jpeg || self == .webp || self == .avif }
}
