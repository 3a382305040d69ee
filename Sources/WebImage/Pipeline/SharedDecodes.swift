import Foundation
import WebImageCore

/// The decodes in flight in one ``ImageManager``, shared between its loads (SPEC D-3: shared
/// bytes, one decode per decode-option group).
///
/// Loads coalesced onto one download get the same bytes; those asking for the same decode
/// options (and coders) get one decode and the very same image, so their transforms are shared
/// too (``SharedTransforms``). The same holds for loads reading one disk entry at once.
///
/// An entry is identified by where the bytes come from (the download of a URL with its request
/// options, or a disk entry of a cache), the decode options and the context's coders. A
/// download's entry is made the moment its bytes reach the load (in the loader's completion,
/// while the downloader still lets loads join the download), so a load of the same URL
/// arriving after the download ended and before the decode ended joins the decode
/// (``join(_:operation:)``), neither downloading nor decoding again. An entry lives while its
/// decode is queued or running and, once it finished, until every load that asked for it has
/// ended (``release(_:)``, after the load stored its result; a later load finds the image in
/// memory). The decode does not start when every load waiting for it was cancelled by the time
/// it gets a pool thread (SPEC M-10).
final class SharedDecodes: Sendable {
    /// Where the bytes of a decode come from.
    enum Source: Hashable, Sendable {
        /// A download of this URL with these request options (as the downloader coalesces).
        case download(url: URL, requestOptions: WebImageOptions.RawValue)
        /// The disk entry under this key in this cache.
        case disk(cache: ObjectIdentifier, key: String)
    }

    struct Key: Hashable, Sendable {
        let source: Source
        let options: DecodeOptions
        /// The context's coders (`nil`: the loader's or the cache's own).
        let coders: ObjectIdentifier?
    }

    /// How a decode ended: the image, or the error (`cancelled` when every load waiting for
    /// it was cancelled before it started).
    typealias Outcome = Result<Image, WebImageError>

    /// A joined or started decode: the bytes it decodes and its result.
    struct Handle: Sendable {
        let bytes: ImageLoaderResult
        let task: Task<Outcome, Never>
    }

    private let work = SharedWork<Key, Handle>()

    /// Decodes asked for so far, and how many of them joined one in flight.
    var counts: (requested: Int, joined: Int) { work.counts }

    /// Entries kept (running, or finished and held by a load that has not ended).
    var entryCount: Int { work.entryCount }

    /// The decode of `key` for `operation`: joined when one is in flight (or finished and
    /// still held), else started on `pool` — `bytes.data` decoded with `options` by `coders`,
    /// finishing the download's incremental decoder instead when its options match. `stage`
    /// names the decode in the decode-duration metric.
    func decode(
        _ key: Key, bytes: ImageLoaderResult, coders: CodersManager, operation: ImageCombinedOperation,
        pool: ProcessingPool, stage: String
    ) -> Handle {
        let work = work
        let options = key.options
        return work.joinOrStart(key, operation: operation) { id in
            let task = Task<Outcome, Never> {
                let outcome: Outcome
                do {
                    outcome = try await pool.run { () -> Outcome in
                        guard work.shouldStart(key, id: id) else { return .failure(.cancelled) }
                        return Self.decode(bytes, options: options, coders: coders, stage: stage)
                    }
                } catch {
                    outcome = .failure(.cancelled)
                }
                work.finish(key, id: id)
                return outcome
            }
            return Handle(bytes: bytes, task: task)
        }
    }

    /// The decode of `key` in flight (or finished and still held), joined by `operation`;
    /// `nil` when there is none.
    func join(_ key: Key, operation: ImageCombinedOperation) -> Handle? {
        work.join(key, operation: operation)
    }

    /// The decode itself, on a pool thread.
    private static func decode(_ bytes: ImageLoaderResult, options: DecodeOptions, coders: CodersManager, stage: String) -> Outcome {
        let data = bytes.data
        do {
            if let progressive = bytes.progressive, progressive.options == options, progressive.coders === coders,
                let image = try progressive.update(data, isComplete: true)
            {
                return .success(image)
            }
            return .success(try PipelineMetrics.timedDecode(stage) { try coders.decode(data, options: options) })
        } catch let error as WebImageError {
            return .failure(error)
        } catch {
            return .failure(.badImageData(reason: "\(error)"))
        }
    }

    /// `operation` ended (its result stored, or it failed or was cancelled): it no longer holds
    /// the decodes it asked for; a finished one no load holds goes.
    func release(_ operation: ImageCombinedOperation) { work.release(operation) }
}
