import Foundation
import Testing
import WebImage

/// `setImage(with:placeholder:)` with a BlurHash or ThumbHash placeholder (SPEC V-14, B-1).
@MainActor
@Suite("Display-target binding with hash placeholders")
struct BindingPlaceholderTests {
    let url = URL(string: "https://img.example.invalid/1.png")!

    @Test("Given a BlurHash placeholder, then its decoded image shows at once")
    func blurHashPlaceholder() {
        let manager = ScriptedManager()
        let target = RecordingTarget()
        target.setImage(with: url, placeholder: .blurHash("LEHV6nWB2yk8pyo0adR*.7kCMdnj", width: 24, height: 16), manager: manager)
        #expect(target.shown.count == 1)
        let shown = target.shown[0].image
        #expect(shown?.width == 24 && shown?.height == 16)
        #expect(manager.operations.count == 1)
    }

    @Test("Given a ThumbHash placeholder, then its decoded image shows, and again after a failure with delayPlaceholder")
    func thumbHashPlaceholder() async throws {
        let source = Image(
            pixels: PixelBuffer(width: 4, height: 2, bytes: [UInt8](repeating: 200, count: 4 * 2 * 4)))
        let hash = ImagePlaceholder.thumbHash(of: source)
        let manager = ScriptedManager()
        let target = RecordingTarget()
        target.setImage(with: url, placeholder: .thumbHash(hash), options: .delayPlaceholder, manager: manager)
        #expect(target.shown.isEmpty)
        manager.operations[0].completion(.failure(.invalidDownloadStatusCode(404)))
        await drainMainQueue()
        #expect(target.shown.count == 1)
        let shown = try #require(target.shown[0].image)
        #expect(shown.width == 32 && shown.height <= 32)
    }

    @Test("Given an invalid hash, then no placeholder shows and the load still runs")
    func invalidHash() {
        let manager = ScriptedManager()
        let target = RecordingTarget()
        target.setImage(with: url, placeholder: .blurHash("not a hash"), manager: manager)
        #expect(target.shown.count == 1 && target.shown[0].image == nil)
        #expect(manager.operations.count == 1)
        #expect(DisplayPlaceholder.thumbHash("!!").makeImage() == nil)
    }

    @Test("Given an image placeholder through the enum, then that very image shows")
    func imageCase() {
        let placeholder = solidImage(9)
        let target = RecordingTarget()
        target.setImage(with: url, placeholder: .image(placeholder), manager: ScriptedManager())
        #expect(target.shown[0].image === placeholder)
    }
}
