import Foundation
import Synchronization
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

    private struct Entry {
        let id: UInt64
        let handle: Handle
        /// The loads that asked for this decode and have not ended yet.
        var operations: [ImageCombinedOperation]
        /// Whether the decode has finished (its result is in the task).
        var finished = false
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// The entries each load holds, by the load's identity (for ``release(_:)``).
        var held: [ObjectIdentifier: [Key]] = [:]
        var nextID: UInt64 = 0
        /// Every decode asked for (tests).
        var requested = 0
        /// Requests that joined a decode already in flight (tests).
        var joined = 0
    }

    private let state = Mutex(State())

    /// Decodes asked for so far, and how many of them joined one in flight.
    var counts: (requested: Int, joined: Int) { state.withLock { ($0.requested, $0.joined) } }

    /// Entries kept (running, or finished and held by a load that has not ended).
    var entryCount: Int { state.withLock { $0.entries.count } }

    /// The decode of `key` for `operation`: joined when one is in flight (or finished and
    /// still held), else started on `pool` — `bytes.data` decoded with `options` by `coders`,
    /// finishing the download's incremental decoder instead when its options match. `stage`
    /// names the decode in the decode-duration metric.
    func decode(
        _ key: Key, bytes: ImageLoaderResult, coders: CodersManager, operation: ImageCombinedOperation,
        pool: ProcessingPool, stage: String
    ) -> Handle {
        state.withLock { state in
            state.requested += 1
            if let handle = Self.join(key, operation, &state) { return handle }
            let id = state.nextID
            state.nextID &+= 1
            let options = key.options
            let task = Task<Outcome, Never> {
                let outcome: Outcome
                do {
                    outcome = try await pool.run { () -> Outcome in
                        guard self.shouldStart(key, id: id) else { return .failure(.cancelled) }
                        return Self.decode(bytes, options: options, coders: coders, stage: stage)
                    }
                } catch {
                    outcome = .failure(.cancelled)
                }
                self.finish(key, id: id)
                return outcome
            }
            let handle = Handle(bytes: bytes, task: task)
            state.entries[key] = Entry(id: id, handle: handle, operations: operation.hasEnded ? [] : [operation])
            if !operation.hasEnded { state.held[ObjectIdentifier(operation), default: []].append(key) }
            return handle
        }
    }

    /// The decode of `key` in flight (or finished and still held), joined by `operation`;
    /// `nil` when there is none.
    func join(_ key: Key, operation: ImageCombinedOperation) -> Handle? {
        state.withLock { state in
            guard state.entries[key] != nil else { return nil }
            state.requested += 1
            return Self.join(key, operation, &state)
        }
    }

    private static func join(_ key: Key, _ operation: ImageCombinedOperation, _ state: inout State) -> Handle? {
        guard var entry = state.entries[key] else { return nil }
        state.joined += 1
        // A load that already ended (cancelled meanwhile) holds nothing: its release has run
        // or is about to, and must not leave it behind.
        if !operation.hasEnded {
            entry.operations.append(operation)
            state.held[ObjectIdentifier(operation), default: []].append(key)
        }
        state.entries[key] = entry
        return entry.handle
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

    /// On the pool thread, before the work: whether any load still waits for it. When none
    /// does, the entry goes at once (under the same lock), so a load arriving later starts a
    /// decode of its own instead of joining one that will not run.
    private func shouldStart(_ key: Key, id: UInt64) -> Bool {
        state.withLock { state in
            guard let entry = state.entries[key], entry.id == id else { return false }
            if entry.operations.allSatisfy(\.isCancelled) {
                state.entries[key] = nil
                return false
            }
            return true
        }
    }

    /// The decode of `key`'s entry finished: the entry stays while a load that asked for it
    /// has not ended.
    private func finish(_ key: Key, id: UInt64) {
        state.withLock { state in
            guard var entry = state.entries[key], entry.id == id else { return }
            if entry.operations.isEmpty {
                state.entries[key] = nil
            } else {
                entry.finished = true
                state.entries[key] = entry
            }
        }
    }

    /// `operation` ended (its result stored, or it failed or was cancelled): it no longer holds
    /// the entries it asked for; a finished entry no load holds goes.
    func release(_ operation: ImageCombinedOperation) {
        state.withLock { state in
            guard let keys = state.held.removeValue(forKey: ObjectIdentifier(operation)) else { return }
            for key in keys {
                guard var entry = state.entries[key] else { continue }
                entry.operations.removeAll { $0 === operation }
                if entry.finished && entry.operations.isEmpty {
                    state.entries[key] = nil
                } else {
                    state.entries[key] = entry
                }
            }
        }
    }
}
