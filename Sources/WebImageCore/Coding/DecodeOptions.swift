/// How to decode one image (SPEC C-4).
public struct DecodeOptions: Sendable, Hashable {
    /// Decode to fit within this size instead of full size. Codecs that can shrink while
    /// decoding (JPEG DCT scaling, WebP scaled decode) do so; the remainder is resampled.
    /// Never enlarges: an image already within the size is decoded at full size.
    public var thumbnailPixelSize: PixelSize?
    /// With ``thumbnailPixelSize``: keep the aspect ratio (fit inside), or stretch to exactly
    /// the size when `false`.
    public var preserveAspectRatio: Bool = true
    /// Decode only the first frame of an animation.
    public var firstFrameOnly: Bool = false
    /// The image's scale (points to pixels). `nil` means 1, or what the caller derives from an
    /// `@2x`/`@3x` file name.
    public var scaleFactor: Double?

    /// The scale a decoded image gets: ``scaleFactor`` when it is a positive finite number,
    /// else 1. Every coder uses this one rule.
    public var imageScale: Double {
        guard let scaleFactor, scaleFactor.isFinite, scaleFactor > 0 else { return 1 }
        return scaleFactor
    }
    /// Turn pixels upright according to EXIF orientation (default). When `false`, pixels are
    /// as stored and ``Image/orientation`` carries the tag.
    public var applyOrientation: Bool = true
    /// Shrink images whose decoded size would exceed ``scaleDownLimitBytes`` (SDWebImage's
    /// `scaleDownLargeImages`), keeping the aspect ratio.
    public var scaleDownLargeImages: Bool = false
    /// Byte budget used by ``scaleDownLargeImages``; default 60 MiB (SDWebImage's value).
    public var scaleDownLimitBytes: Int = 60 * 1024 * 1024
    /// Size limits checked before allocating.
    public var limits: DecodeLimits = .default
    /// The page of a multi-page document to decode (0 = the first): PDF pages (`PDFCoder`),
    /// as SDWebImagePDFCoder's page option. `nil`: the coder's own default (the first page).
    /// Formats whose pages are frames (TIFF) ignore it.
    public var pageIndex: Int?
    /// What to do with the source's colour description (G-2, G-3): convert to sRGB
    /// (default), keep the pixels and attach the profile, or ignore it.
    public var colorManagement: ColorManagement = .convertToSRGB
    /// Whether a JPEG's gain map (Ultra HDR, ISO 21496-1) or a HEIC's Apple HDR gain map is decoded into
    /// ``Image/gainMap`` at the image's scale (SPEC H-2). On by default; off decodes the SDR
    /// base alone and costs nothing extra.
    public var decodesGainMap: Bool = true
    /// The pixel format decoders produce (SPEC H-1). ``PixelFormat/rgba8`` (the default) for
    /// every source. With ``PixelFormat/rgba16``, a source stored with more than 8 bits a
    /// channel (16-bit PNG and TIFF, 10- and 12-bit AVIF, HEIC and JPEG XL) decodes to 16-bit
    /// samples and keeps its colour description (ICC or CICP) attached instead of being
    /// converted to sRGB (unless ``colorManagement`` is ``ColorManagement/ignore``); 8-bit
    /// sources and the other formats still decode to RGBA8. The decoded-bytes budget counts
    /// 8 bytes a pixel for a 16-bit decode.
    public var preferredPixelFormat: PixelFormat = .rgba8
    /// Which rendition of an HDR source to give (SPEC H-5): ``DynamicRange/standard`` (the
    /// default) tone-maps PQ and HLG to SDR; ``DynamicRange/high`` decodes deeper-than-8-bit
    /// sources to RGBA16 with their PQ or HLG signal kept, and applies a JPEG's or HEIC's gain map
    /// into RGBA16 PQ pixels (at ``displayHeadroom``), whatever ``preferredPixelFormat`` says.
    public var dynamicRange: DynamicRange = .standard
    /// With ``dynamicRange`` = ``DynamicRange/high``, the display headroom (linear, over SDR
    /// white; 4 is two stops) a gain-map image's HDR rendition is made for. `nil`, the default:
    /// the map's own maximum (``GainMap/maximumDisplayHeadroom``), its full HDR rendition.
    /// 1 or less gives the SDR base's light.
    public var displayHeadroom: Double?
    /// With ``dynamicRange`` = ``DynamicRange/high``, whether a gain-map image becomes its HDR
    /// rendition (`true`, the default) or stays its SDR base with the map attached, as with
    /// ``DynamicRange/standard`` — for an output that writes the map itself (a JPEG), so that the
    /// SDR base and the map are kept as the source made them instead of being computed again
    /// from the rendition. PQ and HLG sources are not affected.
    public var appliesGainMap: Bool = true

    /// The pixel format decoders produce for a source with more than 8 bits a channel:
    /// ``PixelFormat/rgba16`` when ``dynamicRange`` is ``DynamicRange/high``, else
    /// ``preferredPixelFormat``.
    public var decodedPixelFormat: PixelFormat {
        dynamicRange == .high ? .rgba16 : preferredPixelFormat
    }

    public init(
        thumbnailPixelSize: PixelSize? = nil,
        preserveAspectRatio: Bool = true,
        firstFrameOnly: Bool = false,
        scaleFactor: Double? = nil,
        applyOrientation: Bool = true,
        limits: DecodeLimits = .default
    ) {
        self.thumbnailPixelSize = thumbnailPixelSize
        self.preserveAspectRatio = preserveAspectRatio
        self.firstFrameOnly = firstFrameOnly
        self.scaleFactor = scaleFactor
        self.applyOrientation = applyOrientation
        self.limits = limits
    }

    /// The default options: full size, all frames, orientation applied.
    public static let `default` = DecodeOptions()

    /// The size a decode of an image of `full` pixels (as displayed, orientation applied) should
    /// produce, combining ``thumbnailPixelSize`` and ``scaleDownLargeImages``.
    public func targetSize(for full: PixelSize) -> PixelSize {
        var target = full
        if let thumb = thumbnailPixelSize, thumb.width > 0, thumb.height > 0 {
            target = ThumbnailSizing.fit(full, within: thumb, preserveAspectRatio: preserveAspectRatio)
        }
        if scaleDownLargeImages {
            let maxPixels = max(1, scaleDownLimitBytes / PixelBuffer.bytesPerPixel)
            if target.pixelCount > maxPixels {
                let ratio = (Double(maxPixels) / Double(target.pixelCount)).squareRoot()
                target = PixelSize(
                    width: max(1, Int(Double(target.width) * ratio)),
                    height: max(1, Int(Double(target.height) * ratio)))
            }
        }
        return target
    }
}

/// The thumbnail size rule shared by every codec.
public enum ThumbnailSizing {
    /// The size an image of `size` becomes when fit into `box`. Never enlarges. With
    /// `preserveAspectRatio`, the result fits inside `box` with the ratio kept (each side
    /// rounded, at least 1); otherwise it is `box` clamped to the image size.
    public static func fit(_ size: PixelSize, within box: PixelSize, preserveAspectRatio: Bool) -> PixelSize {
        guard size.width > 0, size.height > 0, box.width > 0, box.height > 0 else { return size }
        if !preserveAspectRatio {
            return PixelSize(width: min(size.width, box.width), height: min(size.height, box.height))
        }
        let ratio = min(Double(box.width) / Double(size.width), Double(box.height) / Double(size.height))
        if ratio >= 1 { return size }
        return PixelSize(
            width: max(1, min(box.width, Int((Double(size.width) * ratio).rounded()))),
            height: max(1, min(box.height, Int((Double(size.height) * ratio).rounded()))))
    }
}
