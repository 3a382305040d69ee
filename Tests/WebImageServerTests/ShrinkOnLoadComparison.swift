import Foundation
import Testing
import WebImage
import WebImageTesting

@testable import WebImageServer

/// What the shrink-on-load suites compare: a source served through a loopback service with some
/// options (which may decode it reduced), the same processing from a full-size decode, and the
/// service's metrics text afterwards (its `webimage_decodes_total{scale}` says which decode ran).
struct ShrinkOnLoadComparison {
    /// The service's answer, decoded.
    var served: Image
    /// The full-size path's result, encoded and decoded as the service does (PNG).
    var reference: Image
    /// `/metrics` after the request.
    var metrics: String

    /// Serves `data` at `path` on a fresh harness's origin, fetches it with `options` as PNG,
    /// and renders the reference with `ImageProcessor(shrinkOnLoad: false)`.
    static func run(_ data: Data, path: String, contentType: String, options: String) async throws -> ShrinkOnLoadComparison {
        let harness = try await ServiceHarness.start()
        defer { Task { await harness.stop() } }
        harness.origin.route(path, .ok(data, contentType: contentType))
        let reply = try await harness.get(harness.plainPath(path, options: options, ext: "png"))
        #expect(reply.status == 200, "\(reply.text)")
        let served = try TestImages.decode(reply.body)

        let parsed = try ProcessingOptions.parse(segments: options.split(separator: "/").map(String.init), presets: PresetTable())
        let full = ImageProcessor(shrinkOnLoad: false)
        let decoded = try full.decode(data, options: parsed, keepAnimation: false)
        #expect(decoded.reduction == nil)
        let reference = try TestImages.decode(try full.encode(try full.transform(decoded, options: parsed), as: .png, options: parsed))
        #expect(served.pixelSize == reference.pixelSize)

        let metrics = try await harness.get("/metrics")
        return ShrinkOnLoadComparison(served: served, reference: reference, metrics: metrics.text)
    }

    /// Whether the one request decoded at `scale` ("1" for full size, "1/2" …).
    func decoded(at scale: String) -> Bool {
        metrics.contains("webimage_decodes_total{scale=\"\(scale)\"} 1")
    }
}

/// One case of the shrink-on-load suites: URL options, the source's EXIF orientation, and the
/// decode scale the service must pick.
struct ShrinkOnLoadCase: Sendable, CustomTestStringConvertible {
    var options: String
    var orientation: UInt8
    /// The scale the decode must happen at ("1" for full size).
    var scale: String
    var testDescription: String { "\(options) (EXIF \(orientation)) at \(scale)" }
}
