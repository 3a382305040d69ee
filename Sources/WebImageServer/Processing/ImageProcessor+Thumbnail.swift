import Foundation
import WebImage

extension ImageProcessor {
    /// The thumbnail libheif finds in a HEIC or HEIF container — or an AVIF one, when libheif
    /// decodes AV1 here (``/WebImageCodecs/HEIFCoder/readsAVIF``) — decoded within the source
    /// limits with the request's colour handling, for `enforce_thumbnail`; `nil` for other
    /// formats, for a file without a thumbnail, and for one libheif cannot read (the main image
    /// is then processed, as without the option). A thumbnail over the limits is refused.
    func decodeContainerThumbnail(_ data: Data, format: ImageFormat, options: ProcessingOptions) throws(ImageServiceError) -> Image? {
        guard format == .heic || format == .heif || (format == .avif && HEIFCoder.readsAVIF) else { return nil }
        var decodeOptions = DecodeOptions()
        decodeOptions.colorManagement = (options.stripColorProfile ?? stripColorProfile) ? .convertToSRGB : .preserve
        limits.applied(to: &decodeOptions)
        do {
            return try HEIFCoder().decodeThumbnail(data, options: decodeOptions)
        } catch let error as WebImageError {
            if case .imageTooLarge(let reason) = error { throw .tooLarge(reason) }
            return nil
        } catch {
            return nil
        }
    }
}
