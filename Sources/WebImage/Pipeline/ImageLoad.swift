import Foundation

/// One load past its synchronous prefix (SPEC M-8 … M-10), as one async line.
///
/// ``run()`` reads top to bottom; each step is a stage of ``ImageManager`` in `Stages/`, an
/// `async` function that returns what the next step needs and calls nothing after it. The line
/// runs in the one task its ``ImageCombinedOperation`` holds: cancelling the handle (or its
/// deadline) cancels the task, and the stages read cancellation from the task.
///
/// Decoding is a stage: the cache query and the download yield bytes (or an image already
/// decoded: a memory hit, or a custom loader's image), and `decode` makes the image, once after
/// each — shared with the other loads decoding the same bytes with the same options
/// (``SharedDecodes``).
struct ImageLoad: Sendable {
    /// How a load ends.
    enum Outcome: Sendable {
        /// With this result; `timed` records the load's duration (a cached or downloaded image).
        case image(ImageResult, timed: Bool)
        /// Without another delivery: a `refreshCached` 304 after the cached image was delivered.
        case notModified
        /// With this error.
        case failed(WebImageError)
    }

    let manager: ImageManager
    let request: ImageLoadRequest
    let operation: ImageCombinedOperation

    /// The line. The memory lookup ran before it, in the synchronous prefix
    /// (``ImageManager/start(_:options:context:progress:completed:ended:)``, SPEC K-1).
    func run() async {
        let outcome: Outcome
        do throws(WebImageError) {
            outcome = try await load()
        } catch {
            outcome = .failed(error)
        }
        manager.deliver(outcome, request, operation)
    }

    private func load() async throws(WebImageError) -> Outcome {
        let found = try await manager.queryCache(request)
        let decodedFound = try await manager.decode(found, request, operation)
        let cached = try await manager.derive(decodedFound, request, operation)
        let refreshed: ImageResult?
        switch manager.decideDownload(request, cached: cached) {
        case .end(let outcome): return outcome
        case .download(let cachedFirst): refreshed = cachedFirst
        }
        // refreshCached: the cached image first, then revalidate (SPEC M-8, D-10).
        if let refreshed { operation.deliver(refreshed) }
        guard let downloaded = try await manager.download(request, operation, revalidating: refreshed != nil) else {
            return .notModified
        }
        let decoded = try await manager.decode(downloaded, request, operation)
        await manager.closePreviews(request, operation)
        let final = try await manager.transform(decoded, request, operation)
        let plan = StorePlan(download: decoded, final: final.image, transformed: final.transformed, request: request)
        try await manager.store(plan, request)
        manager.removePreview(request)
        // The downloaded bytes describe the original, not a transformed image: a transformed
        // result carries no data (as SDWebImage's).
        let data = final.transformed ? nil : decoded.data
        return .image(ImageResult(image: final.image, data: data, cacheType: .none, url: request.url), timed: true)
    }
}
