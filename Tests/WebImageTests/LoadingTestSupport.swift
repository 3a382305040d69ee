import Foundation
import Synchronization
import WebImage
import WebImageCore
import WebImageTesting

/// A trivial image format for loader tests (real codecs land from other work): the magic
/// `RAWI`, width and height as big-endian UInt32, then RGBA8 rows. It is progressive: every
/// complete row received so far can be shown.
struct RawTestCoder: ProgressiveImageDecoding {
    static let magic: [UInt8] = Array("RAWI".utf8)
    static let headerSize = 12

    /// An encoded `width`×`height` image whose pixel (x, y) is (x, y, seed, 255).
    static func encode(width: Int, height: Int, seed: UInt8 = 7) -> Data {
        var bytes = magic
        for value in [UInt32(width), UInt32(height)] {
            withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
        }
        bytes.reserveCapacity(headerSize + width * height * 4)
        for y in 0..<height {
            for x in 0..<width { bytes.append(contentsOf: [UInt8(truncatingIfNeeded: x), UInt8(truncatingIfNeeded: y), seed, 255]) }
        }
        return Data(bytes)
    }

    static func header(_ data: Data) -> (width: Int, height: Int)? {
        guard data.count >= headerSize, Array(data.prefix(4)) == magic else { return nil }
        func read(_ offset: Int) -> Int {
            data.dropFirst(offset).prefix(4).reduce(0) { $0 << 8 | Int($1) }
        }
        let width = read(4)
        let height = read(8)
        guard width > 0, height > 0, width <= 4096, height <= 4096 else { return nil }
        return (width, height)
    }

    func canDecode(_ data: Data) -> Bool { data.count >= 4 && Array(data.prefix(4)) == Self.magic }

    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        guard let (width, height) = Self.header(data), data.count >= Self.headerSize + width * height * 4 else {
            throw WebImageError.badImageData(reason: "truncated RAWI")
        }
        return Self.image(data, width: width, height: height, rows: height, options: options)
    }

    /// Decodes the first `rows` rows (the rest transparent), resized to the options' target.
    static func image(_ data: Data, width: Int, height: Int, rows: Int, options: DecodeOptions) -> Image {
        let target = options.targetSize(for: PixelSize(width: width, height: height))
        let pixels = PixelBuffer.make(width: target.width, height: target.height) { out in
            data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                for ty in 0..<target.height {
                    let sy = ty * height / target.height
                    for tx in 0..<target.width {
                        let sx = tx * width / target.width
                        let o = (ty * target.width + tx) * 4
                        if sy < rows {
                            let i = headerSize + (sy * width + sx) * 4
                            for c in 0..<4 { out[o + c] = raw[i + c] }
                        } else {
                            for c in 0..<4 { out[o + c] = 0 }
                        }
                    }
                }
            }
        }
        return Image(pixels: pixels, format: .unknown)
    }

    func canDecodeIncrementally(_ header: Data) -> Bool { Self.header(header) != nil }

    func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoder {
        RawIncrementalDecoder(options: options)
    }
}

/// The incremental decoder of ``RawTestCoder``; counts its calls.
final class RawIncrementalDecoder: IncrementalImageDecoder {
    let options: DecodeOptions
    private var shownRows = 0

    init(options: DecodeOptions) { self.options = options }

    func update(_ data: Data, isComplete: Bool) throws -> Image? {
        guard let (width, height) = RawTestCoder.header(data) else {
            if isComplete { throw WebImageError.badImageData(reason: "no RAWI header") }
            return nil
        }
        let rows = min(height, (data.count - RawTestCoder.headerSize) / (width * 4))
        if isComplete {
            guard rows == height else { throw WebImageError.badImageData(reason: "truncated RAWI") }
            return RawTestCoder.image(data, width: width, height: height, rows: rows, options: options)
        }
        guard rows > shownRows else { return nil }
        shownRows = rows
        return RawTestCoder.image(data, width: width, height: height, rows: rows, options: options)
    }
}

/// A context whose coders hold only ``RawTestCoder``.
func rawContext() -> WebImageContext {
    var context = WebImageContext()
    context.imageCoders = CodersManager(coders: [RawTestCoder()])
    return context
}

/// A downloader configuration for tests: short timeouts so nothing can hang.
func testDownloaderConfiguration() -> ImageDownloaderConfiguration {
    var configuration = ImageDownloaderConfiguration()
    configuration.downloadTimeout = 10
    configuration.maximumRequestDuration = 20
    configuration.coders = CodersManager(coders: [RawTestCoder()])
    return configuration
}

/// Runs `body` with a started server and a downloader, shutting both down afterwards.
func withServerAndDownloader<T>(
    configuration: ImageDownloaderConfiguration = testDownloaderConfiguration(),
    _ body: (HTTPTestServer, ImageDownloader) async throws -> T
) async throws -> T {
    let server = HTTPTestServer()
    try await server.start()
    let downloader = ImageDownloader(configuration: configuration)
    do {
        let result = try await body(server, downloader)
        try await downloader.shutdown()
        await server.shutdown()
        return result
    } catch {
        try? await downloader.shutdown()
        await server.shutdown()
        throw error
    }
}

/// Resumes a continuation once.
final class ResumeOnce<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = Mutex(continuation)
    }

    func resume(_ value: Value) {
        let stored = continuation.withLock { stored in
            defer { stored = nil }
            return stored
        }
        stored?.resume(returning: value)
    }
}

/// Loads `url` and returns the final result (partial results are skipped).
func loadFinal(
    _ loader: any ImageLoader, _ url: URL, options: WebImageOptions = [], context: WebImageContext = WebImageContext()
) async -> Result<ImageLoaderResult, WebImageError> {
    await withCheckedContinuation { continuation in
        let once = ResumeOnce(continuation)
        _ = loader.requestImage(with: url, options: options, context: context, progress: nil) { result in
            if case .success(let value) = result, !value.finished { return }
            once.resume(result)
        }
    }
}

/// Thread-safe recorder of values delivered by callbacks.
final class Recorder<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])

    func append(_ value: Value) { storage.withLock { $0.append(value) } }
    var values: [Value] { storage.withLock { $0 } }
    var count: Int { storage.withLock { $0.count } }
}

/// Polls `condition` every 10 ms for at most `seconds` (hang detection, not timing).
func eventually(within seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

extension Result where Failure == WebImageError {
    /// The error's case name, or "success".
    var code: String {
        switch self {
        case .success: "success"
        case .failure(let error): error.code
        }
    }

    var transportKind: TransportError.Kind? {
        if case .failure(.transport(let error)) = self { return error.kind }
        return nil
    }
}
