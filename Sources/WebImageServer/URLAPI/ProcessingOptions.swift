import WebImage

/// Every processing option of one request, after presets are applied (SPEC V-2).
///
/// Defaults are imgproxy's. ``canonicalForm`` is a stable text of every field that changes the
/// response, used in cache keys and ETags.
public struct ProcessingOptions: Sendable, Hashable {
    public var resizingType: ResizingType = .fit
    /// `resizing_algorithm` (`ra`): the kernel of every resample (default `lanczos3`).
    public var resizingAlgorithm: ResizingAlgorithm = .lanczos3
    public var width = 0
    public var height = 0
    public var dpr = 1.0
    /// `zoom`: multiplies the requested size (and the source when no size is asked for) on each
    /// axis, like `dpr` but without scaling gravity offsets or padding. 1 = off.
    public var zoomX = 1.0, zoomY = 1.0
    /// `min-width`, `min-height`: the scaled image is at least this wide or high (0 = off);
    /// with `width` (`height`) also set, the result is cropped to it.
    public var minWidth = 0, minHeight = 0
    public var enlarge = false
    public var extend = false
    public var extendGravity: Gravity = .center
    /// `extend_aspect_ratio`: extend the result to the requested width-to-height ratio (when
    /// both are given) instead of to the requested size.
    public var extendAspectRatio = false
    public var extendAspectRatioGravity: Gravity = .center
    public var gravity: Gravity = .center
    public var crop: CropArea?
    public var trim: TrimOptions?
    /// 0 = the per-format default.
    public var quality = 0
    public var formatQuality: [OutputFormat: Int] = [:]
    /// `autoquality`/`aq`: the quality search; `nil` leaves it to the service's setting.
    public var autoquality: AutoQuality?
    /// The URL's `aq` arguments as given, resolved over the service's setting into
    /// ``autoquality`` once the URL is parsed (an empty argument is the setting's).
    var autoqualityArguments: [String]?
    /// `jpeg_options` (`jpgo`): over the service's `jpeg-*` settings, field by field.
    public var jpegOptions = JPEGOptions()
    /// `png_options` (`pngo`): over the service's `png-*` settings.
    public var pngOptions = PNGOptions()
    /// `webp_options` (`webpo`): over the service's `webp-*` settings.
    public var webpOptions = WebPOptions()
    /// `format:best`: the smallest of the service's candidate formats.
    public var bestFormat = false
    /// `nil` = from the URL's extension, else negotiated.
    public var format: OutputFormat?
    public var background: RGBColor?
    /// Gaussian blur sigma; 0 = off.
    public var blur = 0.0
    /// Sharpen sigma; 0 = off.
    public var sharpen = 0.0
    /// `unsharp_masking` (`ush`): mode, weight and divider over the service's settings.
    public var unsharpMasking = UnsharpMasking()
    /// `pixelate`: the block side in result pixels (not scaled by `dpr`); 0 or 1 = off.
    public var pixelate = 0
    /// Clockwise degrees, a multiple of 90.
    public var rotate = 0
    /// `flip` (`fl`), first argument: mirror left ↔ right, after `rotate` (gravity and crop
    /// then refer to the flipped image, as in imgproxy).
    public var flipHorizontal = false
    /// `flip` (`fl`), second argument: mirror top ↔ bottom, after `rotate`.
    public var flipVertical = false
    /// `padding` (`pd`): margins added around the result (after `extend`), scaled by the
    /// device-pixel ratio (not by `zoom`), filled with `background` or transparent; `nil` = none.
    public var padding: PaddingOptions?
    /// `watermark` (`wm`): the configured watermark image on the result; `nil` = none (also
    /// for opacity 0). Without a configured watermark image the option is accepted and does
    /// nothing, as in imgproxy.
    public var watermark: WatermarkOptions?
    /// `nil` = the service default (on).
    public var autoRotate: Bool?
    /// `nil` = the service default (on).
    public var stripMetadata: Bool?
    /// `strip_color_profile` (`scp`): convert to sRGB and write no profile (`true`), or keep the
    /// source's colours and embed its profile (`false`); `nil` = the service's setting.
    public var stripColorProfile: Bool?
    public var cacheBuster: String?
    /// Unix time after which the URL is refused.
    public var expires: Int64?
    /// 0 = no limit.
    public var maxBytes = 0
    public var raw = false
    /// `nil` = inline.
    public var returnAttachment: Bool?
    public var filename: String?
    public var skipProcessing: Set<OutputFormat> = []
    /// `page` (`pg`): the 0-based page of a PDF or TIFF source, or frame of an animated one,
    /// rendered alone as a still image; `nil` = the whole source (a still source's only page).
    public var page: Int?
    /// `pages` (`pgs`): how many pages of a multi-page source (TIFF) or frames of an animated one
    /// to take from `page` (default 0). They stay an animation when the result keeps animation,
    /// and are stacked top to bottom, left-aligned, into one still image otherwise; past the last
    /// page, the pages there are. `nil` = 1. Not available for a PDF source (one page at a time).
    public var pages: Int?
    /// `enforce_thumbnail` (`eth`): process the thumbnail embedded in the source (a JPEG's EXIF
    /// thumbnail; a HEIC/HEIF thumbnail, or an AVIF one when libheif decodes AV1) instead of the
    /// main image, when there is one.
    public var enforceThumbnail = false
    /// `keep_copyright` (`kcr`): write the source's EXIF `Copyright` and `Artist` into a JPEG
    /// result, the only metadata it then carries.
    public var keepCopyright = false
    /// `preserve_hdr` (imgproxy 4): keep a PQ or HLG source's HDR signal and its bit depth
    /// (more than 8 bits a channel) in an output that can carry them — PNG (16-bit with `cICP`),
    /// AVIF (10/12-bit with `nclx`) and JPEG XL (16-bit) — and write a JPEG output as the SDR
    /// rendition plus a gain map computed from the HDR pixels, instead of tone-mapping to SDR;
    /// other outputs are tone-mapped as without it. `nil` = the service's `preserve-hdr` setting (off).
    public var preserveHDR: Bool?
    /// `disable_animation` (`da`): treat every source as a still image, its first frame (or
    /// the `page` asked for).
    public var disableAnimation = false
    /// `avif_options` (`avifo`): AVIF chroma subsampling, over the service's `avif-subsample`.
    public var avifOptions = AVIFOptions()
    /// `background_alpha` (`bga`): the opacity of `background`, 0…1; below 1 the result keeps
    /// an alpha channel.
    public var backgroundAlpha = 1.0
    /// `fallback_image_url` (`fiu`): the image answered when the source cannot be had,
    /// fetched under the source policy, instead of the configured fallback image.
    public var fallbackImageURL: String?
    /// `crop_aspect_ratio` (`crop_ar`, `car`): the width ÷ height the `crop` area is corrected
    /// to; 0 = as given.
    public var cropAspectRatio = 0.0
    /// `crop_aspect_ratio`'s `enlarge`: enlarge the shorter side instead of reducing the longer.
    public var cropAspectRatioEnlarge = false
    /// The colour options (`adjust`, `monochrome`, `duotone`, `colorize`, `gradient`, …).
    public var colorFilters = ColorFilters()
    /// The request's own limits (`max_src_resolution` and the rest), which only lower the
    /// service's.
    public var limits = RequestLimits()
    /// The chained pipelines after this one (`/-/`), each applied to the previous one's result;
    /// their request-wide options are already in this one (`PipelineChain`).
    public var chained: [ProcessingOptions] = []
    /// Whether this pipeline or a chained one draws the watermark.
    public var drawsWatermark: Bool { watermark != nil || chained.contains { $0.watermark != nil } }
    /// Names of the presets applied, in order.
    public var presets: [String] = []

    /// Default options.
    public init() {}

    /// A stable text of every field that changes the response body or headers (not `expires`
    /// nor the preset names, whose effect is already in the other fields).
    public var canonicalForm: String {
        var parts: [String] = []
        parts.append("rs:\(resizingType.rawValue):\(width):\(height):\(enlarge):\(extend):\(Self.text(extendGravity))")
        parts.append("dpr:\(dpr)")
        if resizingAlgorithm != .lanczos3 { parts.append("ra:\(resizingAlgorithm.rawValue)") }
        if zoomX != 1 || zoomY != 1 { parts.append("z:\(zoomX):\(zoomY)") }
        if minWidth != 0 { parts.append("mw:\(minWidth)") }
        if minHeight != 0 { parts.append("mh:\(minHeight)") }
        if extendAspectRatio { parts.append("exar:\(Self.text(extendAspectRatioGravity))") }
        parts.append("g:\(Self.text(gravity))")
        if let crop { parts.append("c:\(crop.width):\(crop.height):\(crop.gravity.map(Self.text) ?? "-")") }
        if let trim {
            parts.append("t:\(trim.threshold):\(trim.color?.description ?? "-"):\(trim.equalHorizontal):\(trim.equalVertical)")
        }
        parts.append("q:\(quality)")
        if !formatQuality.isEmpty {
            parts.append("fq:" + formatQuality.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue):\($0.value)" }.joined(separator: ":"))
        }
        if let autoquality { parts.append(autoquality.canonicalText) }
        for text in [jpegOptions.canonicalText, pngOptions.canonicalText, webpOptions.canonicalText] {
            if let text { parts.append(text) }
        }
        parts.append("f:\(bestFormat ? "best" : format?.rawValue ?? "-")")
        parts.append("bg:\(background?.description ?? "-")")
        parts.append("bl:\(blur)")
        parts.append("sh:\(sharpen)")
        if let text = unsharpMasking.canonicalText { parts.append(text) }
        if pixelate > 1 { parts.append("pix:\(pixelate)") }
        parts.append("rot:\(rotate)")
        if flipHorizontal || flipVertical { parts.append("fl:\(flipHorizontal):\(flipVertical)") }
        if let padding { parts.append("pd:\(padding.top):\(padding.right):\(padding.bottom):\(padding.left)") }
        if let watermark { parts.append(watermark.canonicalText) }
        parts.append("ar:\(autoRotate.map(String.init) ?? "-")")
        parts.append("sm:\(stripMetadata.map(String.init) ?? "-")")
        if let page { parts.append("pg:\(page)") }
        if let pages { parts.append("pgs:\(pages)") }
        if enforceThumbnail { parts.append("eth:1") }
        if keepCopyright { parts.append("kcr:1") }
        if let stripColorProfile { parts.append("scp:\(stripColorProfile)") }
        if let limits = limits.canonicalText { parts.append(limits) }
        if let colors = colorFilters.canonicalText { parts.append(colors) }
        if disableAnimation { parts.append("da:1") }
        if let preserveHDR { parts.append("preserve_hdr:\(preserveHDR)") }
        if let avif = avifOptions.canonicalText { parts.append(avif) }
        if cropAspectRatio > 0 { parts.append("car:\(cropAspectRatio):\(cropAspectRatioEnlarge)") }
        if let fallbackImageURL { parts.append("fiu:" + Base64URL.encode(Array(fallbackImageURL.utf8))) }
        if backgroundAlpha != 1 { parts.append("bga:\(backgroundAlpha)") }
        parts.append("cb:\(cacheBuster ?? "")")
        parts.append("mb:\(maxBytes)")
        parts.append("raw:\(raw)")
        parts.append("att:\(returnAttachment.map(String.init) ?? "-")")
        parts.append("fn:\(filename ?? "")")
        if !skipProcessing.isEmpty { parts.append("skp:" + skipProcessing.map(\.rawValue).sorted().joined(separator: ":")) }
        for next in chained { parts.append("-/" + next.pipelineCanonicalForm) }
        return parts.joined(separator: "/")
    }

    /// A chained pipeline's text: its request-wide options are the first pipeline's.
    private var pipelineCanonicalForm: String {
        var pipeline = self
        pipeline.takeRequestOptions(from: ProcessingOptions())
        return pipeline.canonicalForm
    }

    private static func text(_ gravity: Gravity) -> String {
        switch gravity {
        case let .anchor(anchor, x, y): "\(anchor.rawValue):\(x):\(y)"
        case .smart: "sm"
        case let .focusPoint(x, y): "fp:\(x):\(y)"
        }
    }
}
