import Foundation
import Synchronization
import WebImage

/// The demo's loader: forwards every request to the downloader and opens the server's gate for
/// the popular URLs once each of them has been requested by all its callers. The popular
/// responses are held until then, so every repeat provably joins the one running download
/// (coalescing shown deterministically, not by luck of timing).
final class DemoGateLoader: ImageLoader {
    private let base: any ImageLoader
    private let gate: DemoServer.Gate
    /// Requests still expected per popular URL; the gate opens when it is empty.
    private let remaining: Mutex<[URL: Int]>

    init(base: any ImageLoader, gate: DemoServer.Gate, expected: [URL: Int]) {
        self.base = base
        self.gate = gate
        remaining = Mutex(expected.filter { $0.value > 0 })
        if expected.isEmpty { gate.open() }
    }

    func canRequestImage(for url: URL) -> Bool {
        base.canRequestImage(for: url)
    }

    func requestImage(
        with url: URL,
        options: WebImageOptions,
        context: WebImageContext,
        progress: ImageLoaderProgress?,
        completed: @escaping ImageLoaderCompletion
    ) -> any ImageLoaderToken {
        // Hand the request to the downloader first: it has joined the download before the
        // gate can let the response through.
        let token = base.requestImage(with: url, options: options, context: context, progress: progress, completed: completed)
        let allArrived = remaining.withLock { remaining -> Bool in
            guard let left = remaining[url] else { return false }
            remaining[url] = left > 1 ? left - 1 : nil
            return remaining.isEmpty
        }
        if allArrived { gate.open() }
        return token
    }

    func shouldBlockFailedURL(_ url: URL, error: WebImageError) -> Bool {
        base.shouldBlockFailedURL(url, error: error)
    }
}
