/// The bookkeeping of ``MemoryCache``: a strict least-recently-used list with O(1) insert,
/// lookup, promotion and eviction.
///
/// Nodes live in an array (a free list recycles removed slots) and link to each other by
/// index, so the list never allocates per hit; a dictionary maps keys to slots. `head` is the
/// most recently used entry, `tail` the least recently used. A pure value: the owner keeps it
/// under its lock. The image service's result cache keeps its results in one too.
package struct LRUList<Value> {
    struct Node {
        var key: String
        var value: Value?
        var cost: Int
        var insertedAt: Double
        /// This entry's own time to live in seconds; `nil` follows the owner's default.
        var lifetime: Double?
        var previous: Int
        var next: Int
    }

    private(set) var nodes: [Node] = []
    private var slots: [String: Int] = [:]
    private var freeSlots: [Int] = []
    private var head = -1
    private var tail = -1
    /// Sum of the costs of the entries.
    package private(set) var totalCost = 0
    /// Number of entries stored with their own lifetime (so the owner knows whether a sweep
    /// can find anything when it has no default lifetime).
    private(set) var entriesWithLifetime = 0
    /// The next slot ``removeExpired(examining:isExpired:)`` looks at.
    private var sweepCursor = 0

    /// An empty list.
    package init() {}

    /// Number of entries.
    package var count: Int { slots.count }

    /// The entry for `key`, made most recently used.
    package mutating func promote(_ key: String) -> (value: Value, insertedAt: Double, lifetime: Double?)? {
        guard let slot = slots[key], let value = nodes[slot].value else { return nil }
        moveToHead(slot)
        return (value, nodes[slot].insertedAt, nodes[slot].lifetime)
    }

    /// The entry for `key` without changing the order.
    package func peek(_ key: String) -> (value: Value, insertedAt: Double, lifetime: Double?)? {
        guard let slot = slots[key], let value = nodes[slot].value else { return nil }
        return (value, nodes[slot].insertedAt, nodes[slot].lifetime)
    }

    /// Inserts or replaces the entry for `key` as the most recently used one; `lifetime` is
    /// the entry's own time to live (`nil`: the owner's default).
    package mutating func insert(_ value: Value, forKey key: String, cost: Int, now: Double, lifetime: Double? = nil) {
        if let slot = slots[key] {
            totalCost -= nodes[slot].cost
            if nodes[slot].lifetime != nil { entriesWithLifetime -= 1 }
            nodes[slot].value = value
            nodes[slot].cost = cost
            nodes[slot].insertedAt = now
            nodes[slot].lifetime = lifetime
            if lifetime != nil { entriesWithLifetime += 1 }
            totalCost += cost
            moveToHead(slot)
            return
        }
        if lifetime != nil { entriesWithLifetime += 1 }
        let node = Node(
            key: key, value: value, cost: cost, insertedAt: now, lifetime: lifetime, previous: -1, next: head)
        let slot: Int
        if let free = freeSlots.popLast() {
            slot = free
            nodes[slot] = node
        } else {
            slot = nodes.count
            nodes.append(node)
        }
        if head >= 0 { nodes[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
        slots[key] = slot
        totalCost += cost
    }

    /// Removes the entry for `key`; returns its value.
    @discardableResult
    package mutating func remove(_ key: String) -> Value? {
        guard let slot = slots[key] else { return nil }
        return removeSlot(slot)
    }

    /// Removes the least recently used entry; returns its key and value.
    package mutating func removeLeastRecentlyUsed() -> (key: String, value: Value)? {
        guard tail >= 0 else { return nil }
        let key = nodes[tail].key
        guard let value = removeSlot(tail) else { return nil }
        return (key, value)
    }

    /// Removes every entry.
    mutating func removeAll() {
        nodes.removeAll()
        slots.removeAll()
        freeSlots.removeAll()
        head = -1
        tail = -1
        totalCost = 0
        entriesWithLifetime = 0
        sweepCursor = 0
    }

    /// Looks at up to `limit` slots, going round the slot array from where the last call
    /// stopped, and removes the entries `isExpired` accepts; returns their values.
    ///
    /// A bounded amount of work per call: with `limit` k, every entry is looked at within
    /// ⌈slots ÷ k⌉ calls, whatever the recency order. `Int.max` looks at every slot once.
    mutating func removeExpired(examining limit: Int, isExpired: (Node) -> Bool) -> [Value] {
        var removed: [Value] = []
        let budget = min(max(0, limit), nodes.count)
        var examined = 0
        // `nodes` never grows here; it only empties when the last entry goes.
        while examined < budget, !nodes.isEmpty {
            if sweepCursor >= nodes.count { sweepCursor = 0 }
            let slot = sweepCursor
            sweepCursor += 1
            examined += 1
            if nodes[slot].value != nil, isExpired(nodes[slot]), let value = removeSlot(slot) {
                removed.append(value)
            }
        }
        return removed
    }

    /// The keys from most to least recently used (for tests and diagnostics).
    package var keysByRecency: [String] {
        var keys: [String] = []
        keys.reserveCapacity(count)
        var slot = head
        while slot >= 0, keys.count < count {
            keys.append(nodes[slot].key)
            slot = nodes[slot].next
        }
        return keys
    }

    private mutating func unlink(_ slot: Int) {
        let previous = nodes[slot].previous
        let next = nodes[slot].next
        if previous >= 0 { nodes[previous].next = next } else { head = next }
        if next >= 0 { nodes[next].previous = previous } else { tail = previous }
        nodes[slot].previous = -1
        nodes[slot].next = -1
    }

    private mutating func moveToHead(_ slot: Int) {
        guard slot != head else { return }
        unlink(slot)
        nodes[slot].next = head
        if head >= 0 { nodes[head].previous = slot }
        head = slot
        if tail < 0 { tail = slot }
    }

    private mutating func removeSlot(_ slot: Int) -> Value? {
        unlink(slot)
        let node = nodes[slot]
        slots[node.key] = nil
        totalCost -= node.cost
        if node.lifetime != nil { entriesWithLifetime -= 1 }
        nodes[slot].value = nil
        nodes[slot].key = ""
        freeSlots.append(slot)
        if slots.isEmpty {
            nodes.removeAll(keepingCapacity: true)
            freeSlots.removeAll(keepingCapacity: true)
            sweepCursor = 0
        }
        return node.value
    }
}
