import Foundation

/// Where the service's watermark image comes from (imgproxy's `IMGPROXY_WATERMARK_PATH`,
/// `_URL`, `_DATA`; settings `watermark-path`, `watermark-url`, `watermark-data`).
public enum WatermarkSource: Sendable, Hashable {
    /// The image file's bytes: read from `watermark-path` at start, or decoded from the base64
    /// of `watermark-data`.
    case data(Data)
    /// A source URL (`http`, `https`, `s3://`, `local://`), fetched like a source — the same
    /// allow-list, address policy, byte limit and source cache — the first time a request asks
    /// for the watermark, then again once ``ImageServiceConfiguration/watermarkURLTTL`` has
    /// passed.
    case url(String)
}
