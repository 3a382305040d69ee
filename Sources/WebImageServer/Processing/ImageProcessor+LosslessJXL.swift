import Foundation
import WebImage

extension ImageProcessor {
    /// `data` recompressed losslessly as JPEG XL (libjxl's JPEG reconstruction: the original
    /// JPEG's bytes can be recovered from the result), when it is a JPEG that the request
    /// leaves as it is: no option changes its pixels (``ProcessingOptions/leavesPixelsUntouched``),
    /// it is stored upright, and its colours need no conversion (no ICC profile, or the profile
    /// kept). With metadata stripped (the default), its EXIF, XMP, IPTC and comment segments are
    /// removed first (``JPEGMetadataSegments``); what is recovered is then that JPEG.
    /// `nil` — the normal path decodes and encodes — otherwise, or when libjxl cannot take the
    /// JPEG as it is.
    func losslessJPEGXL(_ data: Data, format: ImageFormat, header: ImageMetadata, options: ProcessingOptions) -> Data? {
        guard format == .jpeg, options.leavesPixelsUntouched, header.orientation == .up else { return nil }
        if options.stripColorProfile ?? stripColorProfile, JPEGMetadataSegments.hasICCProfile(data) { return nil }
        let jpeg = (options.stripMetadata ?? true) ? JPEGMetadataSegments.stripped(data) : data
        guard let jpeg else { return nil }
        return try? JXLCoder().recompressJPEG(jpeg, effort: jxlEffort)
    }
}

extension ProcessingOptions {
    /// Whether the options leave the source's pixels as they are: every option that can change
    /// them has its default. Options about the answer (format, quality, caching, file name,
    /// metadata, orientation handling, which formats skip processing) do not count; anything
    /// else set, including options this check does not know, counts as a change.
    var leavesPixelsUntouched: Bool {
        var rest = self
        rest.quality = 0
        rest.formatQuality = [:]
        rest.format = nil
        rest.cacheBuster = nil
        rest.expires = nil
        rest.returnAttachment = nil
        rest.filename = nil
        rest.stripMetadata = nil
        rest.stripColorProfile = nil
        rest.autoRotate = nil
        rest.keepCopyright = false
        rest.skipProcessing = []
        return rest == ProcessingOptions()
    }
}
