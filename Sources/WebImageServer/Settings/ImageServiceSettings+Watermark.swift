import Foundation
import WebImage

extension ImageServiceSettings {
    /// The `watermark-*` settings: at most one of `watermark-path` (read now, within the source
    /// byte limit), `watermark-url` (a source URL, fetched at the first request that asks for the
    /// watermark) and `watermark-data` (base64); `watermark-opacity` 0 … 1;
    /// `watermark-url-ttl` seconds.
    static func applyWatermark(_ values: [String: [String]], to configuration: inout ImageServiceConfiguration) throws(Problem) {
        func one(_ name: String) -> String? { values[name]?.last }
        let given = ["watermark-path", "watermark-url", "watermark-data"].filter { one($0) != nil }
        guard given.count <= 1 else { throw Problem(description: "\(given.joined(separator: ", ")): give only one watermark image") }
        let limit = configuration.limits.maxSourceBytes
        if let path = one("watermark-path") {
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
            guard let size, size <= limit, let data = FileManager.default.contents(atPath: path) else {
                throw Problem(description: "watermark-path: cannot read '\(path)' (or it is over max-src-bytes)")
            }
            guard ImageFormat.detect(data) != .unknown else { throw Problem(description: "watermark-path: '\(path)' is not an image") }
            configuration.watermark = .data(data)
        }
        if let text = one("watermark-data") {
            let compact = text.filter { !$0.isWhitespace }
            guard compact.count <= (limit / 3 + 1) * 4, let bytes = Base64URL.decode(compact) else {
                throw Problem(description: "watermark-data: not base64 (or over max-src-bytes)")
            }
            let data = Data(bytes)
            guard ImageFormat.detect(data) != .unknown else { throw Problem(description: "watermark-data: not an image") }
            configuration.watermark = .data(data)
        }
        if let url = one("watermark-url") {
            let lower = url.lowercased()
            guard ["http://", "https://", "s3://", "local://"].contains(where: { lower.hasPrefix($0) }) else {
                throw Problem(description: "watermark-url: '\(url)' is not an http, https, s3 or local URL")
            }
            configuration.watermark = .url(url)
        }
        if let text = one("watermark-opacity") {
            guard let opacity = Double(text), (0...1).contains(opacity) else { throw Problem(description: "watermark-opacity: '\(text)' is not from 0 to 1") }
            configuration.watermarkOpacity = opacity
        }
        if let text = one("watermark-url-ttl") {
            guard let seconds = Double(text), seconds > 0, seconds <= 31_536_000 else {
                throw Problem(description: "watermark-url-ttl: '\(text)' is not seconds (up to a year)")
            }
            configuration.watermarkURLTTL = seconds
        }
    }
}
