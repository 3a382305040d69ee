import HTTPTypes
import WebImage

/// The headers of one image answer, decided once (SPEC V-6 … V-8) and written as the 200's
/// fields (``fields``) and the 304's (``notModifiedFields``). An answer made from the fallback
/// image carries no validators, its own lifetime and `Fallback-Image: 1`.
struct ResponseHeaders: Sendable {
    /// The answer's media type.
    var contentType: String
    /// The strong ETag (``ResponseHeaders/etag(identity:options:format:)``).
    var etag: String
    /// `Cache-Control: public, max-age=…` seconds.
    var maxAge: Int
    /// `Content-Disposition` (``ResponseHeaders/disposition(options:source:ext:)``).
    var disposition: String
    /// Whether the answer depends on `Accept` (`Vary: Accept`).
    var varyAccept: Bool
    /// The source's `Last-Modified`, if any.
    var lastModified: String?
    /// Whether the answer was made from the fallback image.
    var isFallback: Bool

    /// `Fallback-Image: 1` marks an answer made from the fallback image.
    static let fallbackImageHeader = HTTPField.Name("Fallback-Image")!

    /// The `Content-Security-Policy` of an SVG answer: nothing it references is loaded and
    /// nothing in it runs, should it be opened as a document.
    static let svgContentSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox"

    /// The 200's (or the fallback status's) headers, `Content-Length` and `X-Request-ID` aside.
    var fields: HTTPFields {
        var fields = HTTPFields()
        fields[.contentType] = contentType
        if contentType == ImageFormat.svg.mimeType { fields[.contentSecurityPolicy] = Self.svgContentSecurityPolicy }
        fields[.cacheControl] = "public, max-age=\(maxAge)"
        if isFallback {
            fields[Self.fallbackImageHeader] = "1"
        } else {
            fields[.eTag] = etag
        }
        fields[.contentDisposition] = disposition
        if varyAccept { fields[.vary] = "Accept" }
        if !isFallback, let lastModified { fields[.lastModified] = lastModified }
        return fields
    }

    /// The 304's headers.
    var notModifiedFields: HTTPFields {
        var fields = HTTPFields()
        fields[.eTag] = etag
        fields[.cacheControl] = "public, max-age=\(maxAge)"
        if varyAccept { fields[.vary] = "Accept" }
        return fields
    }
}
