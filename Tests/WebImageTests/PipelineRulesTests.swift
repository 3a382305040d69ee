import Foundation
import Testing
import WebImage

@Suite("Failed-URL list (M-3)")
struct FailedURLListTests {
    let url = URL(string: "https://example.invalid/a.png")!

    @Test("Given a permanent failure, when recorded, then the URL is listed; removal unlists it")
    func permanentFailureLists() {
        let list = FailedURLList()
        #expect(list.recordFailure(url, error: .invalidDownloadStatusCode(404)))
        #expect(list.contains(url))
        list.remove(url)
        #expect(!list.contains(url))
    }

    @Test("Given transient or cancellation errors, when recorded, then the URL is not listed", arguments: [
        WebImageError.cancelled,
        .transport(TransportError(.timedOut, "t")),
        .transport(TransportError(.notConnected, "n")),
        .transport(TransportError(.cannotFindHost, "h")),
        .transport(TransportError(.cannotConnectToHost, "c")),
        .transport(TransportError(.connectionLost, "l")),
        .blackListed,
    ])
    func transientNotListed(error: WebImageError) {
        let list = FailedURLList()
        #expect(!list.recordFailure(url, error: error))
        #expect(!list.contains(url))
    }

    @Test("Given the loader declines, when a permanent failure is recorded, then nothing is listed")
    func loaderDeclines() {
        let list = FailedURLList()
        #expect(!list.recordFailure(url, error: .badImageData(reason: "x"), loaderAllows: false))
        #expect(list.count == 0)
        #expect(list.recordFailure(url, error: .transport(TransportError(.tls, "bad cert"))))
    }
}

@Suite("Cache key filter and options processor (M-6, M-7)")
struct CacheKeyAndOptionsTests {
    @Test("Given no filter, then the key is the absolute URL; a filter drops a token query item")
    func cacheKeys() {
        let url = URL(string: "https://cdn.example.invalid/p/cat.jpg?w=200&token=abc")!
        #expect(WebImageContext().cacheKey(for: url) == url.absoluteString)
        var context = WebImageContext()
        context.cacheKeyFilter = .removingQueryItems(["token"])
        #expect(context.cacheKey(for: url) == "https://cdn.example.invalid/p/cat.jpg?w=200")
        context.cacheKeyFilter = CacheKeyFilterClosure { _ in nil }
        #expect(context.cacheKey(for: url) == nil)
    }

    @Test("Given a processor, then it rewrites options and context per URL")
    func optionsProcessor() {
        let processor = OptionsProcessorClosure { url, input in
            var output = input
            if url.host == "flaky.example.invalid" { output.options.insert(.retryFailed) }
            output.context.imageScaleFactor = 2
            return output
        }
        let result = processor.process(
            URL(string: "https://flaky.example.invalid/x.png")!, OptionsResult(options: [.lowPriority], context: WebImageContext()))
        #expect(result.options == [.lowPriority, .retryFailed])
        #expect(result.context.imageScaleFactor == 2)
    }
}
