import Foundation
import Testing
import WebImage
import WebImageTesting

/// The `imagePageIndex` context value: a chosen PDF page loaded through the manager over
/// loopback HTTP, cached under a key of its own (SPEC Q-4), as thumbnail sizes are.
@Suite("PDF pages through the context")
struct PDFPageContextTests {
    @Test("Given a two-page PDF, when page 0 and page 1 are loaded through imagePageIndex, then each page is drawn and cached under its own key, and the second page comes from the cached bytes")
    func pages() async throws {
        var configuration = ImageDownloaderConfiguration()
        configuration.downloadTimeout = 30
        configuration.maximumDownloadDuration = 60
        try await withServerAndDownloader(configuration: configuration) { server, downloader in
            let (manager, cache) = ManagerFixtures.manager(loader: downloader)
            server.route("/doc.pdf", .ok(TestPDF.twoPages, contentType: "application/pdf"))
            let url = server.url("/doc.pdf")
            let key = url.absoluteString

            // No page asked: the first (200×100 points, left half red).
            let first = try await manager.loadImage(with: url, options: .waitStoreCache)
            #expect(first.image?.pixelSize == PixelSize(width: 200, height: 100))
            #expect(first.image?.pixels.pixel(x: 20, y: 50) == RGBA(r: 255, g: 0, b: 0))
            #expect(server.requestCount("/doc.pdf") == 1)

            // Page 1 (100×300, blue), decoded from the document's cached bytes.
            var context = WebImageContext()
            context.imagePageIndex = 1
            context.originalQueryCacheType = .disk
            let second = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)
            #expect(second.image?.pixelSize == PixelSize(width: 100, height: 300))
            #expect(second.image?.pixels.pixel(x: 50, y: 150) == RGBA(r: 0, g: 0, b: 255))
            #expect(server.requestCount("/doc.pdf") == 1)

            // Each page under its own key; both come back from memory.
            let pageKey = ImageCache.pageCacheKey(for: key, pageIndex: 1)
            #expect(pageKey != key)
            #expect(cache.imageFromMemoryCache(forKey: pageKey)?.pixelSize == PixelSize(width: 100, height: 300))
            #expect(cache.imageFromMemoryCache(forKey: key)?.pixelSize == PixelSize(width: 200, height: 100))
            let again = try await manager.loadImage(with: url, context: context)
            #expect(again.cacheType == .memory)
            #expect(again.image?.pixelSize == PixelSize(width: 100, height: 300))
            let firstAgain = try await manager.loadImage(with: url)
            #expect(firstAgain.cacheType == .memory)
            #expect(firstAgain.image?.pixelSize == PixelSize(width: 200, height: 100))

            // A page and a thumbnail size: drawn at that size, under both parts of the key.
            context.imageThumbnailPixelSize = PixelSize(width: 50, height: 50)
            let thumb = try await manager.loadImage(with: url, options: .waitStoreCache, context: context)
            #expect(thumb.image?.pixelSize == PixelSize(width: 17, height: 50))
            let thumbKey = ImageCache.thumbnailCacheKey(
                for: pageKey, thumbnailPixelSize: PixelSize(width: 50, height: 50), preserveAspectRatio: true)
            #expect(cache.imageFromMemoryCache(forKey: thumbKey)?.pixelSize == PixelSize(width: 17, height: 50))
            #expect(server.requestCount("/doc.pdf") == 1)

            // A page past the end: a typed error.
            var past = WebImageContext()
            past.imagePageIndex = 2
            past.originalQueryCacheType = .disk
            do {
                _ = try await manager.loadImage(with: url, context: past)
                Issue.record("page 2 of a two-page document loaded")
            } catch WebImageError.badImageData {}
            // The error is about the page: the URL is not on the failed list, the bytes stay.
            #expect(!manager.failedURLs.contains(url))
            #expect(cache.diskCache.data(for: key) != nil)
            let stillThere = try await manager.loadImage(with: url, options: .fromCacheOnly)
            #expect(stillThere.image?.pixelSize == PixelSize(width: 200, height: 100))
        }
    }

    @Test("Given a page index, then the page key part comes before the extension and before the thumbnail part")
    func keys() {
        #expect(ImageCache.pageCacheKey(for: "https://x.org/a/doc.pdf?v=1", pageIndex: 3) == "https://x.org/a/doc-Page(3).pdf?v=1")
        var context = WebImageContext()
        context.imagePageIndex = 0
        #expect(context.decodeOptions(for: []).pageIndex == 0)
        #expect(WebImageContext().decodeOptions(for: []).pageIndex == nil)
    }
}
