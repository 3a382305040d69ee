import Dispatch
import Foundation
import Synchronization
import Testing
import WebImageTesting
@testable import WebImage

/// Coalesced callers with different thumbnail sizes decode side by side over the processing
/// pool, not one after another on one thread (issue #13 item 8; SPEC D-3, C-7).
@Suite("Peer parity: coalesced decodes spread over the pool (D-3, C-7)")
struct ParityDecodeSpreadTests {
    /// Decodes RAWI like ``RawTestCoder`` and records how many decodes run at once. The first
    /// decode holds its thread until a second decode is running beside it (or 60 s passed, the
    /// hang guard), so serial decodes show up as a maximum of 1.
    final class OverlapCoder: ImageCoder {
        private let state = Mutex<(inFlight: Int, maxInFlight: Int, entered: Int)>((0, 0, 0))
        private let overlap = DispatchSemaphore(value: 0)

        var maxInFlight: Int { state.withLock { $0.maxInFlight } }
        var decodes: Int { state.withLock { $0.entered } }

        func canDecode(_ data: Data) -> Bool { RawTestCoder.header(data) != nil }

        func decode(_ data: Data, options: DecodeOptions) throws -> Image {
            let (isFirst, overlapping) = state.withLock { state -> (Bool, Bool) in
                state.inFlight += 1
                state.entered += 1
                state.maxInFlight = max(state.maxInFlight, state.inFlight)
                return (state.entered == 1, state.inFlight >= 2)
            }
            defer { state.withLock { $0.inFlight -= 1 } }
            if overlapping { overlap.signal() }
            if isFirst { _ = overlap.wait(timeout: .now() + 60) }
            guard let (width, height) = RawTestCoder.header(data) else {
                throw WebImageError.badImageData(reason: "not RAWI")
            }
            return RawTestCoder.image(data, width: width, height: height, rows: height, options: options)
        }

        func canEncode(_ format: ImageFormat) -> Bool { false }
        func encode(_ image: Image, format: ImageFormat, options: EncodeOptions) throws -> Data {
            throw WebImageError.unsupportedFormat(format, reason: "decode only")
        }
    }

    @Test("Given ten callers with ten thumbnail sizes on one download, when it completes, then their decodes run concurrently on the pool and each gets its size")
    func thumbnailDecodesSpread() async throws {
        let coder = OverlapCoder()
        var configuration = testDownloaderConfiguration()
        configuration.coders = CodersManager(coders: [coder])
        configuration.processingPool = ProcessingPool(name: "test.spread", width: 4)
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            let gate = HTTPTestServer.Gate()
            server.route("/big.raw", HTTPTestServer.Response.ok(RawTestCoder.encode(width: 64, height: 64)).with { $0.gate = gate })
            let widths = Recorder<Int>()
            let sizes = (0..<10).map { 20 + 2 * $0 }
            for size in sizes {
                var context = WebImageContext()
                context.imageThumbnailPixelSize = PixelSize(width: size, height: size)
                _ = downloader.downloadImage(with: server.url("/big.raw"), context: context) { result in
                    widths.append((try? result.get().image?.width) ?? -1)
                }
            }
            #expect(await eventually { gate.waitingCount == 1 })
            gate.open()
            #expect(await eventually(within: 120) { widths.count == 10 })
            #expect(Set(widths.values) == Set(sizes), "each caller gets its own thumbnail size")
            #expect(coder.decodes == 10, "one decode per distinct size")
            #expect(coder.maxInFlight >= 2, "the decodes must run side by side, not one after another")
            #expect(server.requestCount("/big.raw") == 1)
        }
    }
}
