import Foundation

/// The binding's per-target bookkeeping (SPEC B-2): the running operation under each operation
/// key, the URL being shown, and download progress.
///
/// The operation table holds operations **weakly**: a finished operation is released by the
/// manager and disappears from the table, so a target never keeps finished work alive.
@MainActor
public final class WebImageTargetState {
    private final class WeakOperation {
        weak var operation: (any ImageOperation)?
        let generation: UInt64
        init(_ operation: (any ImageOperation)?, generation: UInt64) {
            self.operation = operation
            self.generation = generation
        }
    }

    private var operations: [String: WeakOperation] = [:]
    private var generations: [String: UInt64] = [:]
    private var nextGeneration: UInt64 = 0

    /// The URL of the latest load started on this target (SPEC B-1 step 2).
    public internal(set) var imageURL: URL?
    /// Progress of the latest load, 0…1.
    public internal(set) var progress: Double = 0

    /// Per-target helper objects of toolkit adapters (for example one target per button
    /// state), kept alive as long as the target.
    public var adapterTargets: [String: AnyObject] = [:]

    public init() {}

    /// The running operation under `key`, if it is still alive.
    public func operation(forKey key: String) -> (any ImageOperation)? {
        operations[key]?.operation
    }

    /// Cancels and forgets the operation under `key`.
    public func cancelOperation(forKey key: String) {
        operations.removeValue(forKey: key)?.operation?.cancel()
        generations[key] = nil
    }

    /// Keys with a live operation.
    public var activeKeys: [String] {
        operations.filter { $0.value.operation != nil }.map(\.key).sorted()
    }

    /// Starts a new load under `key`: a generation number that later callbacks compare with
    /// ``isCurrent(_:forKey:)`` so that a superseded load never touches the target.
    func beginLoad(forKey key: String) -> UInt64 {
        nextGeneration += 1
        generations[key] = nextGeneration
        return nextGeneration
    }

    /// Registers the operation of load `generation` under `key`.
    func register(_ operation: (any ImageOperation)?, generation: UInt64, forKey key: String) {
        guard generations[key] == generation else { return }
        operations[key] = WeakOperation(operation, generation: generation)
    }

    /// Whether load `generation` is still the current one under `key`.
    func isCurrent(_ generation: UInt64, forKey key: String) -> Bool {
        generations[key] == generation
    }

    /// Forgets load `generation` under `key` once it finished.
    func finish(_ generation: UInt64, forKey key: String) {
        guard generations[key] == generation else { return }
        operations[key] = nil
    }
}
