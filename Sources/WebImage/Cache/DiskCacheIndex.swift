/// The disk cache's in-memory index (SPEC S-4, X-4): entry name → size and date, the totals,
/// and a min-heap by date, then store order, for expiry and size trimming: entries stored in
/// the same millisecond leave oldest-stored first, so a trim never removes the entry just
/// stored before the ones stored with it.
///
/// - Totals are kept up to date on every change, so size accounting is O(1) per store.
/// - The heap uses lazy deletion: an update pushes a new node and stale nodes (whose stamp no
///   longer matches the entry) are dropped when they reach the top; the heap is rebuilt when it
///   holds more than twice as many nodes as entries. Removing the `k` oldest entries therefore
///   costs O(k log n), not a walk over all entries.
///
/// Dates are milliseconds since 1970. A pure value: ``DiskCacheStore`` keeps it under its lock.
struct DiskCacheIndex {
    struct Entry: Equatable {
        var size: Int
        var date: Int64
        var stamp: UInt64
    }

    private struct HeapNode {
        var date: Int64
        /// Store order: a later upsert has a larger stamp.
        var stamp: UInt64
        var name: String

        /// Older date first; for equal dates, stored first.
        func precedes(_ other: HeapNode) -> Bool {
            date < other.date || (date == other.date && stamp < other.stamp)
        }
    }

    private(set) var entries: [String: Entry] = [:]
    private var heap: [HeapNode] = []
    private var nextStamp: UInt64 = 0
    /// Sum of the entry sizes.
    private(set) var totalSize = 0

    /// Number of entries.
    var count: Int { entries.count }

    /// Inserts or updates the entry `name`.
    mutating func upsert(_ name: String, size: Int, date: Int64) {
        nextStamp &+= 1
        let stamp = nextStamp
        if let old = entries[name] { totalSize -= old.size }
        entries[name] = Entry(size: size, date: date, stamp: stamp)
        totalSize += size
        push(HeapNode(date: date, stamp: stamp, name: name))
        compactIfNeeded()
    }

    /// Removes the entry `name`; returns whether it was there.
    @discardableResult
    mutating func remove(_ name: String) -> Bool {
        guard let old = entries.removeValue(forKey: name) else { return false }
        totalSize -= old.size
        compactIfNeeded()
        return true
    }

    /// Removes every entry.
    mutating func removeAll() {
        entries.removeAll()
        heap.removeAll()
        totalSize = 0
    }

    /// The oldest entry (name and date), dropping stale heap nodes on the way.
    mutating func oldest() -> (name: String, date: Int64)? {
        while let top = heap.first {
            if let entry = entries[top.name], entry.stamp == top.stamp { return (top.name, top.date) }
            popTop()
        }
        return nil
    }

    /// Removes and returns the oldest entry.
    mutating func popOldest() -> (name: String, entry: Entry)? {
        guard let (name, _) = oldest(), let entry = entries.removeValue(forKey: name) else { return nil }
        popTop()
        totalSize -= entry.size
        return (name, entry)
    }

    /// The newest date (a walk over all entries; for statistics only).
    var newestDate: Int64? { entries.values.lazy.map(\.date).max() }

    // MARK: heap

    private mutating func push(_ node: HeapNode) {
        heap.append(node)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popTop() {
        guard !heap.isEmpty else { return }
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(0)
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        let count = heap.count
        while true {
            let left = 2 * parent + 1
            guard left < count else { return }
            var smallest = left
            let right = left + 1
            if right < count && heap[right].precedes(heap[left]) { smallest = right }
            guard heap[smallest].precedes(heap[parent]) else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }

    private mutating func compactIfNeeded() {
        guard heap.count > 1024, heap.count > 2 * entries.count else { return }
        heap = entries.map { HeapNode(date: $0.value.date, stamp: $0.value.stamp, name: $0.key) }
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }
}
