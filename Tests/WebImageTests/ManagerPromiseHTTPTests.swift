import Foundation
import Synchronization
import Testing
import WebImage
import WebImageTesting

/// Pipeline promises checked over real HTTP on loopback: progress and partial images in
/// `imageEvents`, a 304 refreshing the cached entry's date, gzip bodies, animated images and
/// transformers, and `scaleDownLargeImages` (SPEC M-8, M-9, M-11, D-8, D-10).
@Suite("Image manager promises over loopback HTTP")
struct ManagerPromiseHTTPTests {
    /// A manager over a fresh cache and a downloader with `coders`, callbacks `.current`.
    func withPipeline(
        coders: CodersManager = .shared, decompression: Bool = true,
        _ body: (HTTPTestServer, ImageManager, ImageCache) async throws -> Void
    ) async throws {
        var configuration = ImageDownloaderConfiguration()
        configuration.downloadTimeout = 30
        configuration.maximumDownloadDuration = 60
        configuration.minimumProgressInterval = 0
        configuration.coders = coders
        configuration.decompression = decompression
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            let (manager, cache) = ManagerFixtures.manager(loader: downloader)
            try await body(server, manager, cache)
        }
    }

    @Test("Given a progressive load whose body stops halfway until the test sees a partial image, then imageEvents yields progress, then the partial image, then the image")
    func imageEventsProgressAndPartial() async throws {
        try await withPipeline(coders: CodersManager(coders: [RawTestCoder()])) { server, manager, _ in
            let body = RawTestCoder.encode(width: 32, height: 32, seed: 5)
            let gate = HTTPTestServer.Gate()
            server.route("/events", HTTPTestServer.Response.ok(body).with {
                $0.chunkSize = body.count / 2
                $0.bodyGate = gate
            })
            var kinds: [String] = []
            var partialRows: UInt8?
            var finalImage: Image?
            var progress: [Int64] = []
            for try await event in manager.imageEvents(for: server.url("/events"), options: [.progressiveLoad, .fromLoaderOnly]) {
                switch event {
                case .progress(let received, let expected):
                    #expect(expected == Int64(body.count))
                    progress.append(received)
                    if kinds.last != "progress" { kinds.append("progress") }
                case .partialImage(let value):
                    #expect(!value.isFinal)
                    partialRows = value.image?.frames[0].pixels.pixel(x: 0, y: 31).a
                    kinds.append("partial")
                    gate.open()
                case .image(let value):
                    finalImage = value.image
                    kinds.append("image")
                }
            }
            #expect(kinds.first == "progress")
            #expect(kinds.contains("partial"))
            #expect(kinds.last == "image")
            if let partial = kinds.firstIndex(of: "partial"), let image = kinds.firstIndex(of: "image") {
                #expect(partial < image)
            }
            #expect(progress.contains { $0 < Int64(body.count) }, "progress before the whole body")
            #expect(partialRows == 0, "the partial image lacks its last rows")
            #expect(finalImage?.frames[0].pixels.pixel(x: 31, y: 31) == RGBA(r: 31, g: 31, b: 5, a: 255))
            #expect(server.requestCount("/events") == 1)
        }
    }

    @Test("Given a cached entry with an old date, when refreshCached gets a 304, then the entry's date is refreshed")
    func notModifiedRefreshesDates() async throws {
        try await withPipeline { server, manager, cache in
            server.route("/dated.webp", handler: HTTPTestServer.conditional(try ManagerFixtures.data(), entityTag: "\"d1\"", lastModified: nil))
            let url = server.url("/dated.webp")
            _ = try await manager.loadImage(with: url, options: .waitStoreCache)
            let disk = cache.diskCache
            let old = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: disk.path(for: url.absoluteString).path)
            try disk.rebuildIndex()
            #expect(try disk.statistics().newest == old)

            let recorder = CompletionRecorder()
            _ = manager.loadImage(with: url, options: .refreshCached, completed: recorder.handler)
            // The cached image is delivered first; the 304 ends the load without a second one.
            #expect(await eventually { server.requestCount("/dated.webp") == 2 && manager.runningOperationCount == 0 })
            #expect(server.requests(for: "/dated.webp").last?.header("If-None-Match") == "\"d1\"")
            #expect(await eventually { ((try? disk.statistics().newest) ?? old).timeIntervalSince(old) > 86_400 })
            #expect(recorder.count == 1)
            #expect(disk.extendedData(for: url.absoluteString)?.eTag == "\"d1\"", "the validators are kept")
        }
    }

    @Test("Given a gzip-encoded image body, then it is decompressed and decodes")
    func gzipBody() async throws {
        try await withPipeline { server, manager, cache in
            let data = try ManagerFixtures.data()
            let gzip = GzipStored.encode(data)
            #expect(gzip != data && gzip.count > data.count)
            server.route("/gz.webp", HTTPTestServer.Response.ok(gzip, contentType: "image/webp").with {
                $0.headers.append((name: "Content-Encoding", value: "gzip"))
            })
            let url = server.url("/gz.webp")
            let result = try await manager.loadImage(with: url, options: .waitStoreCache)
            #expect(result.image?.width == 24 && result.image?.height == 16)
            #expect(result.image?.frames[0].pixels.pixel(x: 10, y: 10) == ManagerFixtures.image().frames[0].pixels.pixel(x: 10, y: 10))
            #expect(cache.diskCache.data(for: url.absoluteString) == data, "the decoded bytes are cached, not the gzip stream")
            #expect(server.requestCount("/gz.webp") == 1)
        }
    }

    @Test("Given an animated GIF and a transformer, then it stays untransformed without transformAnimatedImage and is transformed with it")
    func transformAnimatedImage() async throws {
        try await withPipeline { server, manager, _ in
            let frames = (0..<3).map { index in
                ImageFrame(pixels: PixelBuffer.make(width: 8, height: 8) { out in
                    for i in stride(from: 0, to: out.count, by: 4) {
                        out[i] = 255
                        out[i + 1] = UInt8(index * 100)
                        out[i + 2] = 0
                        out[i + 3] = 255
                    }
                }, duration: 0.1)
            }
            let gif = try CodersManager.shared.encode(Image(frames: frames, loopCount: 0, hasAlpha: false), format: .gif, options: .default)
            server.route("/anim.gif", .ok(gif, contentType: "image/gif"))
            let url = server.url("/anim.gif")
            let transformer = InvertTransformer()
            var context = WebImageContext()
            context.imageTransformer = transformer

            let plain = try await manager.loadImage(with: url, options: .fromLoaderOnly, context: context)
            let plainImage = try #require(plain.image)
            #expect(plainImage.isAnimated && plainImage.frames.count == 3)
            #expect(plainImage.frames[0].pixels.pixel(x: 4, y: 4).r > 200, "not inverted")
            #expect(transformer.startedCount == 0)

            let transformed = try await manager.loadImage(with: url, options: [.fromLoaderOnly, .transformAnimatedImage], context: context)
            let image = try #require(transformed.image)
            #expect(image.isAnimated && image.frames.count == 3)
            #expect(image.frames.allSatisfy { $0.pixels.pixel(x: 4, y: 4).r < 50 }, "every frame inverted")
            #expect(transformer.startedCount == 1)
            #expect(server.requestCount("/anim.gif") == 2)
        }
    }

    @Test("Given an image larger than the decode budget, then scaleDownLargeImages reaches the decoder and the image fits the budget, aspect ratio kept")
    func scaleDownLargeImages() async throws {
        let coder = DeclaredSizeCoder()
        try await withPipeline(coders: CodersManager(coders: [coder])) { server, manager, _ in
            // 8192×2048 is 64 MiB decoded: over the default budget of 60 MiB.
            server.route("/large.size", .ok(DeclaredSizeCoder.encode(width: 8192, height: 2048)))
            let url = server.url("/large.size")
            let result = try await manager.loadImage(with: url, options: [.fromLoaderOnly, .scaleDownLargeImages])
            let image = try #require(result.image)
            let budget = DecodeOptions().scaleDownLimitBytes
            #expect(image.width * image.height * 4 <= budget)
            #expect(image.width < 8192 && image.height < 2048)
            #expect(abs(Double(image.width) / Double(image.height) - 4) < 0.01)
            #expect(coder.requests == [true])
            #expect(server.requestCount("/large.size") == 1)
        }
    }
}

/// A format that only declares a size (`SIZE`, width and height as big-endian UInt32) and
/// decodes to a blank image of the size the decode options ask for: a large image that costs
/// nothing to serve. Records whether each decode asked for scaleDownLargeImages.
final class DeclaredSizeCoder: ImageCoder {
    private let asked = Mutex<[Bool]>([])
    var requests: [Bool] { asked.withLock { $0 } }

    static func encode(width: Int, height: Int) -> Data {
        var bytes = Array("SIZE".utf8)
        for value in [UInt32(width), UInt32(height)] {
            withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
        }
        return Data(bytes)
    }

    func canDecode(_ data: Data) -> Bool { data.starts(with: Data("SIZE".utf8)) }

    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        guard data.count == 12 else { throw WebImageError.badImageData(reason: "not 12 bytes") }
        let bytes = [UInt8](data)
        func read(_ offset: Int) -> Int { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        asked.withLock { $0.append(options.scaleDownLargeImages) }
        let target = options.targetSize(for: PixelSize(width: read(4), height: read(8)))
        guard target.pixelCount <= 1 << 26 else { throw WebImageError.badImageData(reason: "too large to allocate") }
        return Image(pixels: PixelBuffer(width: target.width, height: target.height, bytes: [UInt8](repeating: 0, count: target.pixelCount * 4)))
    }
}

/// gzip (RFC 1952) around deflate "stored" blocks (RFC 1951, no compression): a valid stream
/// any inflater accepts, built without a compression library.
enum GzipStored {
    static func encode(_ data: Data) -> Data {
        var out = Data([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0xFF])
        let bytes = [UInt8](data)
        var offset = 0
        repeat {
            let count = min(65_535, bytes.count - offset)
            let final = offset + count == bytes.count
            out.append(final ? 1 : 0)
            out.append(contentsOf: littleEndian16(UInt16(count)))
            out.append(contentsOf: littleEndian16(~UInt16(count)))
            out.append(contentsOf: bytes[offset..<offset + count])
            offset += count
        } while offset < bytes.count
        out.append(contentsOf: littleEndian32(CRC32.checksum(bytes)))
        out.append(contentsOf: littleEndian32(UInt32(truncatingIfNeeded: bytes.count)))
        return out
    }

    private static func littleEndian16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private static func littleEndian32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
}
