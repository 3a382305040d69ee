import CoreMetrics
import Foundation
import Logging

extension ImageManager {
    /// The store stage: applies `plan`, memory at once, then disk. Nothing is stored for a
    /// cancelled load (SPEC M-10).
    ///
    /// - Throws: `cancelled`.
    func store(_ plan: StorePlan, _ request: ImageLoadRequest) async throws(WebImageError) {
        try Self.checkCancellation()
        storeInMemory(plan)
        await storeOnDisk(plan, request)
    }

    /// The memory part of `plan`, synchronously.
    private func storeInMemory(_ plan: StorePlan) {
        for write in plan.writes where write.storesInMemory {
            if let image = write.image { write.cache.memoryCache.setImage(image, forKey: write.key) }
        }
    }

    /// The disk part of `plan`: in the background (the write outlives the load) or, with
    /// `waitStoreCache`, before returning. A write fails quietly (logged): the load has its
    /// image either way.
    private func storeOnDisk(_ plan: StorePlan, _ request: ImageLoadRequest) async {
        let context = request.context
        for write in plan.writes where write.storesOnDisk {
            let disk: @Sendable () async -> Void = {
                do {
                    try await write.cache.store(
                        write.image, imageData: write.data, forKey: write.key, cacheType: .disk, context: context,
                        extendedData: write.extendedData)
                } catch {
                    PipelineMetrics.logger.warning("disk store failed", metadata: ["key": "\(write.key)", "error": "\(error)"])
                }
            }
            if request.options.contains(.waitStoreCache) {
                await disk()
            } else {
                Task { await disk() }
            }
        }
    }

    /// The deliver stage: ends the load with its outcome. A failure is counted and forgets the
    /// memory preview; nothing is delivered for a load already cancelled or stopped.
    func deliver(_ outcome: ImageLoad.Outcome, _ request: ImageLoadRequest, _ operation: ImageCombinedOperation) {
        switch outcome {
        case .image(let result, let timed):
            if timed, !operation.hasEnded { metrics.loadDuration(source: result.cacheType, since: request.startTime) }
            operation.end(.success(result))
        case .notModified:
            operation.endSilently()
        case .failed(let error):
            guard !operation.isCancelled else { return }
            metrics.failure(error)
            removePreview(request)
            operation.end(.failure(error))
        }
    }
}
