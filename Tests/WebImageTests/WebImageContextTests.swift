import Testing
import WebImage

private enum CustomKey: WebImageContextKey { typealias Value = Int }

@Suite("Context and options (M-4, M-5)")
struct WebImageContextTests {
    @Test("Given typed keys, when set and merged, then values read back with their types")
    func typedValues() {
        var base = WebImageContext()
        base.operationKey = "cell"
        base[CustomKey.self] = 7
        var over = WebImageContext()
        over.imageThumbnailPixelSize = PixelSize(width: 64, height: 64)
        over[CustomKey.self] = 9
        let merged = base.merging(over)
        #expect(merged.operationKey == "cell")
        #expect(merged[CustomKey.self] == 9)
        #expect(merged.imageThumbnailPixelSize == PixelSize(width: 64, height: 64))
        #expect(WebImageContext().isEmpty)
    }

    @Test("Given options and context, then decode options follow them")
    func decodeOptions() {
        var context = WebImageContext()
        context.imageThumbnailPixelSize = PixelSize(width: 10, height: 20)
        context.imagePreserveAspectRatio = false
        let decode = context.decodeOptions(for: [.decodeFirstFrameOnly, .scaleDownLargeImages])
        #expect(decode.thumbnailPixelSize == PixelSize(width: 10, height: 20))
        #expect(!decode.preserveAspectRatio)
        #expect(decode.firstFrameOnly)
        #expect(decode.scaleDownLargeImages)
    }

    @Test("Given options, then each is a distinct bit")
    func distinctBits() {
        let all: [WebImageOptions] = [.retryFailed, .lowPriority, .highPriority, .progressiveLoad, .refreshCached, .handleCookies, .allowInvalidSSLCertificates, .delayPlaceholder, .transformAnimatedImage, .avoidAutoSetImage, .scaleDownLargeImages, .queryMemoryData, .queryMemoryDataSync, .queryDiskDataSync, .fromCacheOnly, .fromLoaderOnly, .forceTransition, .avoidDecodeImage, .decodeFirstFrameOnly, .preloadAllFrames, .matchAnimatedImageClass, .waitStoreCache, .avoidAutoCancelImage]
        #expect(Set(all.map(\.rawValue)).count == all.count)
    }
}
