import Foundation
import WebImageCore

extension ImageCache {
    /// The key of a transformed image (SPEC Q-4): `-` and `transformerKey` inserted before the
    /// key's path extension, so the original and each transformed copy never collide.
    ///
    /// `https://x.org/a/b.png?v=1` with `Resize(100x100)` →
    /// `https://x.org/a/b-Resize(100x100).png?v=1`; a key without extension gets the suffix at
    /// the end of its path. Pure string work: never fails, whatever the key.
    public static func cacheKey(for key: String, transformerKey: String) -> String {
        guard !transformerKey.isEmpty else { return key }
        return insertingBeforeExtension(key, "-" + transformerKey)
    }

    /// The key of a thumbnail decode (SPEC Q-4): `-Thumbnail({w,h},p)` before the path
    /// extension, where `p` is 1 when the aspect ratio is preserved and 0 otherwise.
    public static func thumbnailCacheKey(for key: String, thumbnailPixelSize size: PixelSize, preserveAspectRatio: Bool)
        -> String
    {
        insertingBeforeExtension(key, "-Thumbnail({\(size.width),\(size.height)},\(preserveAspectRatio ? 1 : 0))")
    }

    /// The key of one page of a multi-page document (the `imagePageIndex` context value):
    /// `-Page(N)` before the path extension.
    public static func pageCacheKey(for key: String, pageIndex: Int) -> String {
        insertingBeforeExtension(key, "-Page(\(pageIndex))")
    }

    /// The memory-cache key of the progressive preview of the image stored under `key`:
    /// `-Preview` before the path extension. Previews live only in memory, under this key of
    /// their own, so a preview is never taken for the final image (see
    /// ``ImageManager`` progressive loads).
    public static func previewCacheKey(for key: String) -> String {
        insertingBeforeExtension(key, "-Preview")
    }

    /// `key` with `suffix` inserted before the path extension of its path part (the part before
    /// `?`/`#` when the key is a URL with a scheme), or at the end of the path part.
    static func insertingBeforeExtension(_ key: String, _ suffix: String) -> String {
        let scalars = Array(key.unicodeScalars)
        var pathEnd = scalars.count
        if let scheme = key.range(of: "://") {
            let schemeLength = key.unicodeScalars.distance(from: key.unicodeScalars.startIndex, to: scheme.upperBound)
            if let cut = scalars[schemeLength...].firstIndex(where: { $0 == "?" || $0 == "#" }) { pathEnd = cut }
        }
        var insertAt = pathEnd
        var index = pathEnd
        while index > 0 {
            let scalar = scalars[index - 1]
            if scalar == "/" { break }
            if scalar == "." {
                // A leading dot (".png") names the file; it is no extension.
                if index - 1 > 0 && scalars[index - 2] != "/" { insertAt = index - 1 }
                break
            }
            index -= 1
        }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[..<insertAt])
        result.append(contentsOf: suffix.unicodeScalars)
        result.append(contentsOf: scalars[insertAt...])
        return String(result)
    }
}

extension WebImageContext {
    /// Whether a decode under this context gives another image than the full decode of the
    /// original: a thumbnail size or a page is set.
    var decodesDerivedImage: Bool { imageThumbnailPixelSize != nil || imagePageIndex != nil }

    /// `key` with the parts of this context that change the decoded image (SPEC Q-4): the page,
    /// then the thumbnail size. `key` itself when there is neither.
    func decodedImageKey(for key: String) -> String {
        var derived = key
        if let page = imagePageIndex {
            derived = ImageCache.pageCacheKey(for: derived, pageIndex: page)
        }
        if let size = imageThumbnailPixelSize {
            derived = ImageCache.thumbnailCacheKey(
                for: derived, thumbnailPixelSize: size, preserveAspectRatio: imagePreserveAspectRatio ?? true)
        }
        return derived
    }
}
