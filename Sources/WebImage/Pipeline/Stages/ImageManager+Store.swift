import CoreMetrics
import Foundation
import Logging

extension ImageManager {
    /// The end of a download that brought the final bytes: transform when the transformer
    /// applies (SPEC M-9), store per the ``StorePlan``, deliver.
    ///
    /// Without a transform the plan's memory part is applied right here, synchronously: the
    /// downloader has just ended this download, and a load of the same URL arriving before the
    /// asynchronous part must find the image instead of downloading it again.
    func finishDownload(_ value: ImageLoaderResult, _ request: ImageLoadRequest, _ operation: ImageCombinedOperation) {
        guard let original = value.image, request.shouldTransform(original) else {
            let plan = StorePlan(download: value, final: value.image, transformed: false, request: request)
            if !operation.isCancelled { storeInMemory(plan) }
            Task {
                await closePreviews(request, operation)
                await storeOnDiskAndDeliver(plan, image: value.image, data: value.data, request, operation)
            }
            return
        }
        Task {
            await closePreviews(request, operation)
            let transformed: Image?
            do throws(WebImageError) {
                transformed = try await transform(original, request, operation)
            } catch {
                return fail(error, request, operation)
            }
            // A transform that declined delivers the original, with its bytes.
            let final = transformed ?? original
            let plan = StorePlan(download: value, final: final, transformed: transformed != nil, request: request)
            // The downloaded bytes describe the original, not a transformed image: a
            // transformed result carries no data (as SDWebImage's).
            let data = transformed == nil ? value.data : nil
            guard !operation.isCancelled else { return }
            storeInMemory(plan)
            await storeOnDiskAndDeliver(plan, image: final, data: data, request, operation)
        }
    }

    /// Applies the disk part of `plan` (its memory part is applied by the caller), forgets the
    /// memory preview and ends the load with `image` and `data`.
    private func storeOnDiskAndDeliver(
        _ plan: StorePlan, image: Image?, data: Data?, _ request: ImageLoadRequest, _ operation: ImageCombinedOperation
    ) async {
        guard !operation.isCancelled else { return }
        await storeOnDisk(plan, request, operation)
        removePreview(request)
        guard !operation.isCancelled else { return }
        metrics.loadDuration(source: .none, since: request.startTime)
        operation.end(.success(ImageResult(image: image, data: data, cacheType: .none, url: request.url)))
    }

    /// Applies `plan`: memory at once, then disk. Nothing is stored for a cancelled load
    /// (SPEC M-10).
    func store(_ plan: StorePlan, _ request: ImageLoadRequest, _ operation: ImageCombinedOperation) async {
        guard !operation.isCancelled else { return }
        storeInMemory(plan)
        await storeOnDisk(plan, request, operation)
    }

    /// The memory part of `plan`, synchronously.
    private func storeInMemory(_ plan: StorePlan) {
        for write in plan.writes where write.storesInMemory {
            if let image = write.image { write.cache.memoryCache.setImage(image, forKey: write.key) }
        }
    }

    /// The disk part of `plan`: in the background or, with `waitStoreCache`, before returning.
    /// A write fails quietly (logged): the load has its image either way.
    private func storeOnDisk(_ plan: StorePlan, _ request: ImageLoadRequest, _ operation: ImageCombinedOperation) async {
        let context = request.context
        for write in plan.writes where write.storesOnDisk {
            guard !operation.isCancelled else { return }
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

    /// Ends the load with `error` (a download's failure, or a transform's budget refusal):
    /// counted as a failure, the memory preview removed.
    func fail(_ error: WebImageError, _ request: ImageLoadRequest, _ operation: ImageCombinedOperation) {
        guard !operation.isCancelled else { return }
        metrics.failure(error)
        removePreview(request)
        operation.end(.failure(error))
    }
}
