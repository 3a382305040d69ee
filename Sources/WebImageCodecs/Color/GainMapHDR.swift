import WebImageCore

/// The last step of a JPEG or HEIC decode with ``/WebImageCore/DecodeOptions/dynamicRange`` =
/// ``/WebImageCore/DynamicRange/high`` (SPEC H-5): a gain-map image becomes its HDR rendition,
/// ``/WebImageCore/GainMap/hdrPixels(of:displayHeadroom:)`` — RGBA16 coded with PQ in BT.709
/// primaries (CICP 1/16), the map applied and no longer attached.
enum GainMapHDR {
    /// `image` as its HDR rendition when `options` ask for `.high` and it carries a map over an
    /// 8-bit still base; otherwise `image` unchanged. A base with a colour profile attached
    /// (``/WebImageCore/ColorManagement/preserve``) is converted to sRGB first: the rendition is
    /// defined on the sRGB base (the map stays valid, see the HDR article). The 16-bit result
    /// counts against the decoded-bytes budget with the base it is made from.
    /// - Throws: ``/WebImageCore/WebImageError`` `imageTooLarge` when the rendition does not fit.
    static func apply(_ image: Image, options: DecodeOptions) throws -> Image {
        guard options.dynamicRange == .high, options.appliesGainMap, let map = image.gainMap, image.pixelFormat == .rgba8, !image.isAnimated else {
            return image
        }
        // The base (4 bytes a pixel, twice when converted), the map and the rendition (8 bytes
        // a pixel) exist together.
        let converts = image.colorProfile != nil && options.colorManagement != .ignore
        let needed = DecodeLimits.decodedBytes(frames: converts ? 4 : 3, of: image.pixelSize)
            + DecodeLimits.decodedBytes(frames: 1, of: map.pixelSize)
        guard needed <= options.limits.maxDecodedBytes else {
            throw WebImageError.imageTooLarge(
                reason: "the HDR rendition of \(image.pixelSize) with its gain map needs \(DecodeLimits.formatBytes(needed)); "
                    + "the decoded-bytes budget is \(DecodeLimits.formatBytes(options.limits.maxDecodedBytes))")
        }
        var base = image
        if converts, let profile = image.colorProfile {
            base = ColorConversion.toSRGB(image, profile: profile)
        }
        let pixels = map.hdrPixels(of: base.pixels, displayHeadroom: options.displayHeadroom)
        return Image(
            frames: [ImageFrame(pixels: pixels, duration: image.frames[0].duration)], scale: image.scale,
            orientation: image.orientation, format: image.format, loopCount: 0, hasAlpha: image.hasAlpha,
            colorProfile: ColorProfile(kind: .cicp(GainMap.hdrPixelsCICP)), gainMap: nil)
    }
}
