import CHEIF
import Foundation
import WebImageCore

/// The HEIC/HEIF decoder over libheif (SPEC C-3's later step): the primary image of a file,
/// HEVC-coded (libde265), 8- or 10-bit, with alpha, grids of tiles, and the container's crop,
/// rotation and mirroring applied.
///
/// - The container's rotation and mirroring are always applied (the result reports `.up`):
///   ``/WebImageCore/DecodeOptions/applyOrientation`` off is not honoured, as libheif 1.15
///   exposes no way to read the transforms it would leave undone.
/// - Pixels come out as 8-bit RGBA with straight alpha; higher bit depths are scaled down.
///   PQ and HLG sources of more than 8 bits are decoded at their depth and tone-mapped to SDR
///   sRGB (BT.2408; the HDR article), unless colour descriptions are ignored.
/// - Limits are checked on the image size from the container before anything is decoded
///   (SPEC C-6).
/// - Thumbnails decode at full size and are then resampled.
/// - An image sequence (`.heics`) decodes to its primary image: libheif 1.15 reads no
///   sequence tracks. ``readMetadata(_:)`` still says whether the container is a sequence.
/// - Apple's HDR gain map (an iPhone photo's auxiliary image) comes as
///   ``/WebImageCore/Image/gainMap``, restated in ISO 21496-1 terms, unless
///   ``/WebImageCore/DecodeOptions/decodesGainMap`` is off; a map that cannot be kept leaves the
///   base alone with the reason (``/WebImageCore/Image/gainMapIssue``). With
///   ``/WebImageCore/DynamicRange/high`` the map is applied instead: RGBA16 PQ pixels.
/// - AVIF files are left to ``AVIFCoder``; HEIF is not encoded.
///
/// The coder holds no state; every call opens its own libheif context.
public struct HEIFCoder: ImageCoder {
    /// The HEIF coder (it holds no state).
    public init() {}

    /// Whether `data` starts with a HEIC or HEIF `ftyp` box.
    public func canDecode(_ data: Data) -> Bool {
        let format = ImageFormat.detect(data)
        return format == .heic || format == .heif
    }

    /// Decodes the primary image.
    /// - Throws: ``/WebImageCore/WebImageError`` — `badImageData` or `imageTooLarge`.
    public func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        let primary = try HEIFPrimaryImage(data, limits: options.limits)
        let profile = options.colorManagement == .ignore ? nil : primary.colorProfile
        if options.decodedPixelFormat == .rgba16, primary.storedDepth > 8 {
            // More than 8 bits asked for and stored: RGBA16, the colour description kept (H-1).
            let decoded = try primary.decode16(limits: options.limits)
            let pixels = FrameOutput(unturned: decoded, options: options).finish(decoded)
            let image = Image(
                pixels: pixels, scale: options.imageScale, format: ImageFormat.detect(data), hasAlpha: primary.hasAlpha)
            return try Self.attachGainMap(to: image.replacing(colorProfile: profile), primary: primary, options: options)
        }
        let hdr = Self.toneMapped(profile, options: options)
        let decoded = try primary.decode(hdr: hdr, limits: options.limits)
        let pixels = FrameOutput(unturned: decoded, options: options).finish(decoded)
        let image = Image(pixels: pixels, scale: options.imageScale, format: ImageFormat.detect(data), hasAlpha: primary.hasAlpha)
        // An 8-bit PQ/HLG source (no high-bit-depth decode) is tone-mapped by the colour step.
        let highDepth = hdr != nil && Int(heif_image_handle_get_luma_bits_per_pixel(primary.handle)) > 8
        let finished = ColorConversion.finish(image, profile: highDepth ? nil : profile, options: options)
        return try Self.attachGainMap(to: finished, primary: primary, options: options)
    }

    /// `image` with Apple's HDR gain map (``/WebImageCore/Image/gainMap``) when the file has one
    /// and `options` decode gain maps, or with the reason it was dropped.
    /// With ``/WebImageCore/DynamicRange/high``, the map is applied (`GainMapHDR`).
    static func attachGainMap(to image: Image, primary: HEIFPrimaryImage, options: DecodeOptions) throws -> Image {
        guard options.decodesGainMap else { return image }
        let withMap: Image
        do throws(GainMapIssue) {
            guard let map = try primary.decodeAppleGainMap(baseSize: PixelSize(width: image.width, height: image.height), limits: options.limits)
            else { return image }
            withMap = image.replacing(gainMap: map)
        } catch {
            return image.replacing(gainMap: nil, issue: error)
        }
        return try GainMapHDR.apply(withMap, options: options)
    }

    /// The PQ/HLG code points of `profile` when a decode with `options` tone-maps them (H-4).
    static func toneMapped(_ profile: ColorProfile?, options: DecodeOptions) -> CICP? {
        guard HDRToSDR.transform(for: profile, options: options, bits: 16) != nil, case .cicp(let cicp)? = profile?.kind
        else { return nil }
        return cicp
    }

    /// Reads the primary image's size (as shown) and alpha, without decoding; a sequence
    /// container is reported as animated, with the one image libheif decodes.
    /// - Throws: `badImageData` when libheif cannot read the container, `imageTooLarge` over a limit.
    public func readMetadata(_ data: Data) throws -> ImageMetadata {
        let primary = try HEIFPrimaryImage(data, limits: .default)
        var metadata = ImageMetadata(
            format: ImageFormat.detect(data), pixelSize: primary.size, hasAlpha: primary.hasAlpha,
            colorProfile: primary.colorProfile)
        metadata.frameCount = 1
        metadata.bitDepth = Int(heif_image_handle_get_luma_bits_per_pixel(primary.handle))
        metadata.isAnimated = ImageFormat.isAnimated(data)
        do throws(GainMapIssue) { metadata.gainMap = try primary.appleGainMapSummary() } catch { metadata.gainMapIssue = error }
        return metadata
    }
}
