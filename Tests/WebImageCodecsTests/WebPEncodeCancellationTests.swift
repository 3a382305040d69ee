import Foundation
import Testing
import WebImageCodecs
import WebImageCore

/// A cancelled pool job stops a WebP encode at libwebp's next progress report.
@Suite("WebP encoding: cancellation")
struct WebPEncodeCancellationTests {
    @Test("Given a set WorkCancellation flag, then the WebP encode throws cancelled; without it, it encodes")
    func cancelledEncode() throws {
        let pixels = PixelBuffer.make(width: 256, height: 256) { out in
            for index in out.indices { out[index] = index % 4 == 3 ? 255 : UInt8(truncatingIfNeeded: index &* 13) }
        }
        let image = Image(pixels: pixels, hasAlpha: false)
        let flag = WorkCancellation()
        flag.cancel()
        let error = #expect(throws: WebImageError.self) {
            try flag.installed { try CodersManager.shared.encode(image, format: .webp, options: EncodeOptions(quality: 0.8)) }
        }
        guard case .cancelled? = error else {
            Issue.record("expected cancelled, got \(String(describing: error))")
            return
        }
        let data = try WorkCancellation().installed { try CodersManager.shared.encode(image, format: .webp, options: EncodeOptions(quality: 0.8)) }
        #expect(ImageFormat.detect(data) == .webp)
    }
}
