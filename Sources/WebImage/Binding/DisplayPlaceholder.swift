import WebImageCore

/// What a display target shows while its image loads: an image, or a BlurHash or ThumbHash
/// string decoded into a small image (SPEC V-14), for
/// ``ImageDisplayTarget/setImage(with:placeholder:options:context:manager:progress:completed:)-(_,DisplayPlaceholder,_,_,_,_,_)``.
///
/// ```swift
/// imageView.setImage(with: url, placeholder: .blurHash("LEHV6nWB2yk8pyo0adR*.7kCMdnj"))
/// imageView.setImage(with: url, placeholder: .thumbHash(item.thumbHash))
/// ```
///
/// The strings come from ``/WebImageCore/ImagePlaceholder`` (or a service's `/info`); decoding
/// one takes well under a millisecond, so it happens on the spot. The decoded image is small
/// (32 pixels on a side by default): show it scaled to the view, where the blur hides the size.
public enum DisplayPlaceholder: Sendable {
    /// A ready image.
    case image(Image)
    /// A BlurHash, decoded at `width` × `height` pixels (1…256; a BlurHash holds no aspect
    /// ratio, so give the expected one) with contrast `punch` (1: as encoded).
    case blurHash(String, width: Int = 32, height: Int = 32, punch: Double = 1)
    /// A ThumbHash (base64), decoded at its own aspect ratio, 32 pixels on the longer side.
    case thumbHash(String)

    /// The image to show: the image itself, or the decoded string; `nil` when the string is
    /// not a valid hash or the size is out of range (the target then shows no placeholder).
    public func makeImage() -> Image? {
        switch self {
        case .image(let image):
            image
        case .blurHash(let hash, let width, let height, let punch):
            try? ImagePlaceholder.image(fromBlurHash: hash, width: width, height: height, punch: punch)
        case .thumbHash(let hash):
            try? ImagePlaceholder.image(fromThumbHash: hash)
        }
    }
}
