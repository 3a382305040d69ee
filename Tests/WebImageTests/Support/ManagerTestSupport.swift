import Foundation
import Synchronization
import Testing
import WebImage

/// A loader scripted per URL: answers at once, holds a request until the test releases it, and
/// decodes like the real downloader. Counts requests and records the validators it was sent.
final class ScriptedLoader: ImageLoader {
    enum Outcome: Sendable {
        /// Serve these bytes (decoded unless `avoidDecodeImage`) with these headers.
        case data(Data, headers: [HTTPHeaderField] = [])
        /// Fail with this error.
        case error(WebImageError)
        /// 304 when the request carries validators, else serve the bytes.
        case notModifiedOr(Data, headers: [HTTPHeaderField])
        /// Keep the request open until ``release(_:with:)``.
        case hold
    }

    final class Token: ImageLoaderToken {
        let completion: ImageLoaderCompletion
        private let done = Mutex(false)
        init(completion: @escaping ImageLoaderCompletion) { self.completion = completion }
        func finish(_ result: Result<ImageLoaderResult, WebImageError>) {
            let first = done.withLock { was in defer { was = true }; return !was }
            if first { completion(result) }
        }
        func cancel() { finish(.failure(.cancelled)) }
        var isDone: Bool { done.withLock { $0 } }
    }

    private struct State {
        var outcomes: [URL: Outcome] = [:]
        var requests: [URL] = []
        var validators: [HTTPCacheValidators?] = []
        var held: [(URL, Token, WebImageOptions, WebImageContext)] = []
    }

    private let state = Mutex(State())
    let coders: CodersManager

    init(coders: CodersManager = .shared) { self.coders = coders }

    func script(_ url: URL, _ outcome: Outcome) { state.withLock { $0.outcomes[url] = outcome } }
    func requestCount(_ url: URL) -> Int { state.withLock { $0.requests.filter { $0 == url }.count } }
    var totalRequests: Int { state.withLock { $0.requests.count } }
    var sentValidators: [HTTPCacheValidators?] { state.withLock { $0.validators } }
    var heldCount: Int { state.withLock { $0.held.count } }

    /// Completes the oldest held request for `url` with `outcome`.
    func release(_ url: URL, with outcome: Outcome) {
        let entry = state.withLock { state -> (URL, Token, WebImageOptions, WebImageContext)? in
            guard let index = state.held.firstIndex(where: { $0.0 == url }) else { return nil }
            return state.held.remove(at: index)
        }
        guard let (url, token, options, context) = entry else { return }
        answer(url, outcome, token: token, options: options, context: context)
    }

    func canRequestImage(for url: URL) -> Bool { url.scheme == "test" }

    func requestImage(
        with url: URL, options: WebImageOptions, context: WebImageContext, progress: ImageLoaderProgress?,
        completed: @escaping ImageLoaderCompletion
    ) -> any ImageLoaderToken {
        let token = Token(completion: completed)
        let outcome = state.withLock { state -> Outcome in
            state.requests.append(url)
            state.validators.append(context.cachedResponseValidators)
            return state.outcomes[url] ?? .error(.invalidDownloadStatusCode(404))
        }
        if case .hold = outcome {
            state.withLock { $0.held.append((url, token, options, context)) }
        } else {
            answer(url, outcome, token: token, options: options, context: context)
        }
        return token
    }

    private func answer(_ url: URL, _ outcome: Outcome, token: Token, options: WebImageOptions, context: WebImageContext) {
        switch outcome {
        case .hold:
            state.withLock { $0.held.append((url, token, options, context)) }
        case .error(let error):
            token.finish(.failure(error))
        case .notModifiedOr(let data, let headers):
            if context.cachedResponseValidators != nil {
                token.finish(.failure(.cacheNotModified))
            } else {
                answer(url, .data(data, headers: headers), token: token, options: options, context: context)
            }
        case .data(let data, let headers):
            var image: Image?
            if !options.contains(.avoidDecodeImage) {
                do {
                    image = try (context.imageCoders ?? coders).decode(data, options: context.decodeOptions(for: options))
                } catch {
                    token.finish(.failure(error as? WebImageError ?? .badImageData(reason: "\(error)")))
                    return
                }
            }
            let response = ImageResponseInfo(statusCode: 200, url: url, headers: headers)
            token.finish(.success(ImageLoaderResult(image: image, data: data, response: response, finished: true)))
        }
    }
}

/// A transformer that inverts colours; optionally waits at a gate so tests can cancel while
/// it runs.
final class InvertTransformer: ImageTransformer {
    let transformerKey: String
    private let gate: DispatchSemaphore?
    private let started = Mutex(0)

    init(key: String = "Invert", gated: Bool = false) {
        transformerKey = key
        gate = gated ? DispatchSemaphore(value: 0) : nil
    }

    var startedCount: Int { started.withLock { $0 } }
    func open() { gate?.signal() }

    func transform(_ image: Image, key: String) -> Image? {
        started.withLock { $0 += 1 }
        if let gate { _ = gate.wait(timeout: .now() + 120) }  // a forgotten gate cannot hang the test
        let frames = image.frames.map { frame -> ImageFrame in
            let source = frame.pixels.bytes
            let pixels = PixelBuffer.make(width: frame.pixels.width, height: frame.pixels.height) { out in
                for i in stride(from: 0, to: source.count, by: 4) {
                    out[i] = 255 - source[i]
                    out[i + 1] = 255 - source[i + 1]
                    out[i + 2] = 255 - source[i + 2]
                    out[i + 3] = source[i + 3]
                }
            }
            return ImageFrame(pixels: pixels, duration: frame.duration)
        }
        return image.replacing(frames: frames)
    }
}

/// Records every delivery of a completion handler.
final class CompletionRecorder: Sendable {
    private let results = Mutex<[Result<ImageResult, WebImageError>]>([])
    var handler: ImageCompletionHandler { { [self] result in results.withLock { $0.append(result) } } }
    var all: [Result<ImageResult, WebImageError>] { results.withLock { $0 } }
    var count: Int { all.count }
    var errorCodes: [String] { all.compactMap { if case .failure(let e) = $0 { e.code } else { nil } } }
    var images: [Image?] { all.compactMap { if case .success(let r) = $0 { r.image } else { nil } } }
    var cacheTypes: [ImageCacheType] { all.compactMap { if case .success(let r) = $0 { r.cacheType } else { nil } } }
}

enum ManagerFixtures {
    /// A 24×16 gradient with a translucent corner, encoded losslessly (WebP) so it decodes exactly.
    static func image(seed: UInt8 = 0) -> Image {
        let w = 24, h = 16
        let pixels = PixelBuffer.make(width: w, height: h) { out in
            for y in 0..<h {
                for x in 0..<w {
                    let i = (y * w + x) * 4
                    out[i] = UInt8(x * 10) &+ seed
                    out[i + 1] = UInt8(y * 15)
                    out[i + 2] = 128 &+ seed
                    out[i + 3] = x < 4 && y < 4 ? 128 : 255
                }
            }
        }
        return Image(pixels: pixels, format: .webp, hasAlpha: true)
    }

    static func data(seed: UInt8 = 0) throws -> Data {
        try CodersManager.shared.encode(image(seed: seed), format: .webp, options: EncodeOptions(lossless: true))
    }

    static func url(_ name: String) -> URL { URL(string: "test://images.invalid/\(name).webp")! }

    /// A manager over a fresh cache in a temporary directory and `loader`; callbacks `.current`.
    static func manager(loader: any ImageLoader) -> (ImageManager, ImageCache) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-manager-\(UUID().uuidString)")
        // A pool of its own: suites run in parallel, and a busy shared pool (cache scale tests)
        // must not starve these tests' disk queries.
        let cache = ImageCache(directory: directory, pool: ProcessingPool(name: "test.manager", width: 2))
        let manager = ImageManager(cache: cache, loader: loader)
        manager.callbackQueue = .current
        return (manager, cache)
    }
}
