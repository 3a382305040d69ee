import Foundation
import Synchronization
import WebImage

/// The service's watermark image (``ImageServiceConfiguration/watermark``), loaded once and
/// shared by every request with the `watermark` option: file bytes are decoded at the first such
/// request and kept; a URL is fetched then (one fetch for concurrent requests) and fetched again
/// on the first request after ``ttl`` seconds. A refresh that fails keeps the watermark it had
/// (tried again after another ``ttl``); with none yet, the request fails with
/// ``ImageServiceError/sourceFailed(_:)`` naming the watermark.
final class WatermarkStore: Sendable {
    /// Where the image comes from.
    let source: WatermarkSource
    /// Seconds a fetched URL's watermark is used before it is fetched again.
    let ttl: Double
    /// The service's base opacity.
    let baseOpacity: Double
    private let fetch: @Sendable (String) async throws -> SourceImage
    private let decode: @Sendable (Data) async throws -> Image
    /// The watermark and when it is due to be fetched again (`nil`: never, file bytes).
    private let current = Mutex<(watermark: LoadedWatermark, refreshAt: ContinuousClock.Instant?)?>(nil)
    private let flights = SingleFlight<Int, LoadedWatermark>()

    /// A store for `source`; `fetch` gets a URL's bytes under the source policy, `decode` makes
    /// the image (on the processing pool).
    init(
        source: WatermarkSource, ttl: Double, baseOpacity: Double, fetch: @escaping @Sendable (String) async throws -> SourceImage,
        decode: @escaping @Sendable (Data) async throws -> Image
    ) {
        self.source = source
        self.ttl = ttl
        self.baseOpacity = baseOpacity
        self.fetch = fetch
        self.decode = decode
    }

    /// The watermark now, and the seconds it stays current (`nil`: for good).
    func watermark() async throws -> (watermark: LoadedWatermark, freshFor: Double?) {
        if let held = fresh() { return held }
        let loaded = try await flights.run(0) { [self] in
            if let held = fresh() { return held.watermark }
            do {
                let loaded = try await load()
                current.withLock { $0 = (loaded, refreshTime()) }
                return loaded
            } catch {
                guard let old = current.withLock({ $0?.watermark }) else { throw Self.describe(error) }
                current.withLock { $0 = (old, refreshTime()) }
                return old
            }
        }
        // A URL's watermark that is already due again counts as current for no time at all.
        guard case .url = source else { return (loaded, nil) }
        return (loaded, fresh()?.freshFor ?? 0)
    }

    /// The held watermark while it is current.
    private func fresh() -> (watermark: LoadedWatermark, freshFor: Double?)? {
        guard let held = current.withLock({ $0 }) else { return nil }
        guard let refreshAt = held.refreshAt else { return (held.watermark, nil) }
        let now = ContinuousClock.now
        guard now < refreshAt else { return nil }
        let left = now.duration(to: refreshAt).components
        return (held.watermark, Double(left.seconds) + Double(left.attoseconds) / 1e18)
    }

    private func refreshTime() -> ContinuousClock.Instant? {
        guard case .url = source else { return nil }
        return ContinuousClock.now + .milliseconds(Int64(min(ttl, 1e9) * 1000))
    }

    /// Fetches (a URL) and decodes the watermark.
    private func load() async throws -> LoadedWatermark {
        let data: Data
        switch source {
        case let .data(bytes): data = bytes
        case let .url(url): data = try await fetch(url).data
        }
        let image = try await decode(data)
        let identity = await offLoop { SourceIdentity.content(data) }
        return LoadedWatermark(image: image, identity: identity, baseOpacity: baseOpacity)
    }

    /// A load failure in words naming the watermark (a timeout or cancellation stays as it is).
    private static func describe(_ error: any Error) -> any Error {
        switch error {
        case let error as ImageServiceError:
            switch error {
            case .timedOut, .unavailable: return error
            default: return ImageServiceError.sourceFailed("watermark: \(error.description)")
            }
        case is CancellationError: return error
        default: return ImageServiceError.sourceFailed("watermark: \(error)")
        }
    }
}
