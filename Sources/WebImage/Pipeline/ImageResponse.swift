import Foundation

/// What ``ImageManager/image(for:options:context:progress:)`` returns: a load that succeeded
/// always has its image (as Nuke's `ImageResponse` and Kingfisher's `RetrieveImageResult`).
///
/// ``ImageResult`` is the SDWebImage-shaped result of the callback API and of
/// `ImageManager.loadImage(with:options:context:progress:) async`, where a load may end
/// without an image (bytes only with `avoidDecodeImage`, or no image and no error, SPEC M-8).
public struct ImageResponse: Sendable {
    /// The decoded (and transformed) image.
    public var image: Image
    /// The encoded bytes, when the stage that produced the image had them.
    public var data: Data?
    /// Where the image came from: `.memory`, `.disk`, or `.none` (downloaded).
    public var cacheType: ImageCacheType
    /// The requested URL.
    public var url: URL

    /// A response with `image`.
    public init(image: Image, data: Data? = nil, cacheType: ImageCacheType, url: URL) {
        self.image = image
        self.data = data
        self.cacheType = cacheType
        self.url = url
    }

    /// The response of `result`, or `nil` when it has no image.
    public init?(_ result: ImageResult) {
        guard let image = result.image else { return nil }
        self.init(image: image, data: result.data, cacheType: result.cacheType, url: result.url)
    }
}
