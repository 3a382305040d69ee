import CHEIF
import Foundation
import WebImageCore

extension HEIFCoder {
    /// Whether libheif can decode AV1 here (its AOM or dav1d plugin), so it can read an AVIF
    /// file's thumbnails.
    public static var readsAVIF: Bool {
        HEIFPrimaryImage.ensureInitialised()
        return heif_have_decoder_for_format(heif_compression_AV1) != 0
    }

    /// The thumbnail embedded in a HEIC/HEIF file — or an AVIF file, when libheif reads AV1 here
    /// (``readsAVIF``) — decoded as the main image would be (transforms and colour handling
    /// alike): the largest one when there are several; `nil` when the file has none.
    /// - Throws: ``/WebImageCore/WebImageError`` — `badImageData` when the container or the
    ///   thumbnail cannot be read, `imageTooLarge` over the limits.
    public func decodeThumbnail(_ data: Data, options: DecodeOptions) throws -> Image? {
        let primary = try HEIFPrimaryImage(data, limits: options.limits)
        guard let thumbnail = try primary.decodeThumbnail(limits: options.limits) else { return nil }
        let pixels = FrameOutput(unturned: thumbnail.pixels, options: options).finish(thumbnail.pixels)
        let image = Image(pixels: pixels, scale: options.imageScale, format: ImageFormat.detect(data), hasAlpha: thumbnail.hasAlpha)
        let profile = options.colorManagement == .ignore ? nil : primary.colorProfile
        return ColorConversion.finish(image, profile: profile, options: options)
    }
}
