/// The order in which queued downloads start (SPEC D-4): a pure value, no I/O, no locks.
///
/// At most `maxConcurrent` downloads run. ``enqueue(_:priority:)`` either starts a download
/// at once or queues it; ``finish(_:)`` frees a slot and names the downloads to start next:
/// the highest priority first, and within one priority the oldest (FIFO) or newest (LIFO).
struct DownloadQueue<ID: Hashable> {
    private struct Entry {
        var id: ID
        var priority: DownloadPriority
        var sequence: UInt64
    }

    /// Maximum number of downloads running at once (at least 1).
    private(set) var maxConcurrent: Int
    /// FIFO or LIFO within one priority.
    let order: ImageDownloaderConfiguration.ExecutionOrder
    private var waiting: [Entry] = []
    private(set) var running: Set<ID> = []
    private var nextSequence: UInt64 = 0

    init(maxConcurrent: Int, order: ImageDownloaderConfiguration.ExecutionOrder) {
        self.maxConcurrent = max(1, maxConcurrent)
        self.order = order
    }

    /// Number of queued (not running) downloads.
    var waitingCount: Int { waiting.count }

    /// The priorities of the queued downloads, highest first.
    var waitingPriorities: [DownloadPriority] { waiting.map(\.priority).sorted(by: >) }

    /// Whether `id` is queued and not yet running.
    func isWaiting(_ id: ID) -> Bool { waiting.contains { $0.id == id } }

    /// Adds a download; returns the downloads that start now (at most this one).
    mutating func enqueue(_ id: ID, priority: DownloadPriority) -> [ID] {
        waiting.append(Entry(id: id, priority: priority, sequence: nextSequence))
        nextSequence &+= 1
        return startAvailable()
    }

    /// Sets a queued download's priority, up or down; its place among equal priorities (its
    /// arrival order) is kept. Running downloads are unaffected. Returns whether `id` was queued.
    @discardableResult
    mutating func setPriority(_ id: ID, to priority: DownloadPriority) -> Bool {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return false }
        waiting[index].priority = priority
        return true
    }

    /// The priority of a queued download, or `nil` when it is not queued.
    func priority(of id: ID) -> DownloadPriority? {
        waiting.first { $0.id == id }?.priority
    }

    /// Removes a queued download (cancelled before it started). Returns whether it was queued.
    @discardableResult
    mutating func removeWaiting(_ id: ID) -> Bool {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return false }
        waiting.remove(at: index)
        return true
    }

    /// Frees the slot of a running download; returns the downloads that start now.
    mutating func finish(_ id: ID) -> [ID] {
        guard running.remove(id) != nil else { return [] }
        return startAvailable()
    }

    /// Changes the limit; returns the downloads that start now if it grew.
    mutating func setMaxConcurrent(_ limit: Int) -> [ID] {
        maxConcurrent = max(1, limit)
        return startAvailable()
    }

    private mutating func startAvailable() -> [ID] {
        var started: [ID] = []
        while running.count < maxConcurrent, let index = nextIndex() {
            let entry = waiting.remove(at: index)
            running.insert(entry.id)
            started.append(entry.id)
        }
        return started
    }

    /// The queued entry to start next: highest priority, then oldest (FIFO) or newest (LIFO).
    private func nextIndex() -> Int? {
        var best: Int?
        for index in waiting.indices {
            guard let current = best else {
                best = index
                continue
            }
            let candidate = waiting[index]
            let chosen = waiting[current]
            if candidate.priority != chosen.priority {
                if candidate.priority > chosen.priority { best = index }
            } else {
                switch order {
                case .fifo: if candidate.sequence < chosen.sequence { best = index }
                case .lifo: if candidate.sequence > chosen.sequence { best = index }
                }
            }
        }
        return best
    }
}
