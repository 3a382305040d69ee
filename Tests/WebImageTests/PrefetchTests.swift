import Foundation
import Synchronization
import Testing
@testable import WebImage

@Suite("Prefetch scheduler (P-1, P-2)")
struct PrefetchSchedulerTests {
    let urls = (0..<5).map { URL(string: "https://img.example.invalid/\($0).png")! }

    func starts(_ actions: [PrefetchScheduler.Action]) -> [Int] {
        actions.compactMap { if case .start(_, let index, _) = $0 { index } else { nil } }
    }

    @Test("Given a batch larger than the limit, then only the limit starts and each end starts the next")
    func limit() {
        var scheduler = PrefetchScheduler(maxConcurrent: 2)
        let (batch, first) = scheduler.add(urls)
        #expect(starts(first) == [0, 1])
        let next = scheduler.itemEnded(batch: batch, index: 0, succeeded: true)
        #expect(next.contains(.progress(batch: batch, finished: 1, total: 5)))
        #expect(starts(next) == [2])
        #expect(scheduler.runningCount == 2)
    }

    @Test("Given all items end, then the batch completes once with finished and skipped counts")
    func completion() {
        var scheduler = PrefetchScheduler(maxConcurrent: 5)
        let (batch, _) = scheduler.add(urls)
        var all: [PrefetchScheduler.Action] = []
        for index in 0..<5 { all += scheduler.itemEnded(batch: batch, index: index, succeeded: index != 3) }
        #expect(all.filter { if case .complete = $0 { true } else { false } } == [.complete(batch: batch, finished: 4, skipped: 1)])
        #expect(scheduler.activeBatchCount == 0)
        #expect(scheduler.itemEnded(batch: batch, index: 0, succeeded: true).isEmpty, "late ends are ignored")
    }

    @Test("Given two batches, when one is cancelled, then its running items are cancelled and the other batch continues")
    func cancelOneBatch() {
        var scheduler = PrefetchScheduler(maxConcurrent: 2)
        let (a, _) = scheduler.add(urls)
        let (b, bStart) = scheduler.add(Array(urls.prefix(2)))
        #expect(starts(bStart).isEmpty, "batch b waits for slots")
        let cancelled = scheduler.cancel(batch: a)
        #expect(cancelled.contains(.cancel(batch: a, index: 0)) && cancelled.contains(.cancel(batch: a, index: 1)))
        let afterFirst = scheduler.itemEnded(batch: a, index: 0, succeeded: false)
        #expect(starts(afterFirst) == [0], "a freed slot goes to batch b")
        let afterSecond = scheduler.itemEnded(batch: a, index: 1, succeeded: false)
        #expect(afterSecond.contains(.complete(batch: a, finished: 0, skipped: 5)))
        #expect(scheduler.isRunning(batch: b, index: 0) && scheduler.isRunning(batch: b, index: 1))
    }

    @Test("Given an empty batch, then it completes at once")
    func emptyBatch() {
        var scheduler = PrefetchScheduler(maxConcurrent: 3)
        let (batch, actions) = scheduler.add([])
        #expect(actions == [.complete(batch: batch, finished: 0, skipped: 0)])
    }
}

@Suite("Image prefetcher (P-1, P-2)")
struct ImagePrefetcherTests {
    let urls = (0..<6).map { URL(string: "https://img.example.invalid/p\($0).png")! }

    @Test("Given a batch, then loads are low priority, bounded, and counts arrive through progress and completion")
    func batchCounts() async {
        let manager = ScriptedManager()
        let prefetcher = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: 3)
        let progress = Mutex<[Int]>([])
        let outcome = Mutex<(Int, Int)?>(nil)
        let seen = Mutex<[URL]>([])
        prefetcher.setObserver { url, _ in seen.withLock { $0.append(url) } }
        prefetcher.prefetchURLs(
            urls, progress: { finished, total in progress.withLock { $0.append(finished * 100 + total) } },
            completed: { finished, skipped in outcome.withLock { $0 = (finished, skipped) } })
        #expect(manager.operations.count == 3, "maxConcurrentPrefetchCount bounds the loads")
        var delivered = 0
        while delivered < manager.operations.count {
            let operation = manager.operations[delivered]
            if delivered == 4 {
                operation.completion(.failure(.invalidDownloadStatusCode(404)))
            } else {
                operation.completion(.success(ImageResult(image: solidImage(1), cacheType: delivered == 0 ? .memory : .none, url: operation.url)))
            }
            delivered += 1
        }
        #expect(manager.operations.count == 6)
        #expect(progress.withLock { $0 } == [106, 206, 306, 406, 506, 606])
        #expect(outcome.withLock { $0 }.map { [$0.0, $0.1] } == [5, 1])
        #expect(Set(seen.withLock { $0 }) == Set(urls))
        #expect(prefetcher.runningCount == 0)
    }

    @Test("Given two batches, when one token is cancelled, then only that batch stops")
    func cancelToken() {
        let manager = ScriptedManager()
        let prefetcher = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: 4)
        let outcomes = Mutex<[String: (Int, Int)]>([:])
        let a = prefetcher.prefetchURLs(Array(urls.prefix(3)), completed: { f, s in outcomes.withLock { $0["a"] = (f, s) } })
        prefetcher.prefetchURLs(Array(urls.suffix(3)), completed: { f, s in outcomes.withLock { $0["b"] = (f, s) } })
        #expect(manager.operations.count == 4)
        a.cancel()
        #expect(manager.operations.prefix(3).allSatisfy { $0.isCancelled })
        #expect(outcomes.withLock { $0["a"] }.map { [$0.0, $0.1] } == [0, 3])
        #expect(!manager.operations[3].isCancelled)
        for operation in manager.operations.dropFirst(3) where !operation.isCancelled {
            operation.completion(.success(ImageResult(image: solidImage(2), cacheType: .none, url: operation.url)))
        }
        for operation in manager.operations.dropFirst(4) where !operation.isCancelled {
            operation.completion(.success(ImageResult(image: solidImage(2), cacheType: .none, url: operation.url)))
        }
        #expect(outcomes.withLock { $0["b"] }.map { [$0.0, $0.1] } == [3, 0])
    }

    @Test("Given cancelPrefetching, then every batch completes with the rest skipped")
    func cancelAll() {
        let manager = ScriptedManager()
        let prefetcher = ImagePrefetcher(manager: manager, maxConcurrentPrefetchCount: 1)
        let count = Mutex(0)
        prefetcher.prefetchURLs(urls, completed: { _, _ in count.withLock { $0 += 1 } })
        prefetcher.prefetchURLs(urls, completed: { _, _ in count.withLock { $0 += 1 } })
        prefetcher.cancelPrefetching()
        #expect(count.withLock { $0 } == 2)
        #expect(manager.operations.allSatisfy { $0.isCancelled })
    }
}
