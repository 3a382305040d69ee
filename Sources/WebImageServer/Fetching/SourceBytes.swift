import Foundation
import WebImage

/// A fetched source's bytes and their format, shared by every request that uses them.
/// Requests hold it through their ``SourceImage``; once the last one is done, the bytes are
/// freed.
final class SourceBytes: Sendable {
    let data: Data
    /// The format sniffed from the bytes, once, when they arrived (``ImageFormat/unknown`` for
    /// bytes that are no image the service knows).
    let format: ImageFormat

    init(_ data: Data) {
        self.data = data
        format = ImageFormat.detect(data)
    }
}
