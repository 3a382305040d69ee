import Foundation
import WebImage

extension ImageProcessor {
    /// `keep_copyright`: a JPEG result `body` with the source's EXIF `Copyright` and `Artist`
    /// (``EXIFCopyright``, read from a JPEG's EXIF or a TIFF's first directory) in an APP1
    /// segment of their own; `body` unchanged for other outputs, without the option, or when
    /// the source has neither tag. The encoders write pixels only, so with or without
    /// `strip_metadata` this is the only metadata a result carries.
    func keepingCopyright(_ body: Data, of source: Data, as format: OutputFormat, options: ProcessingOptions) -> Data {
        guard options.keepCopyright, format == .jpeg, let copyright = EXIFCopyright.read(from: source) else { return body }
        return copyright.inserted(intoJPEG: body)
    }
}
