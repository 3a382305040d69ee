/// Runs one operation per key at a time; concurrent callers with the same key share its result
/// (SPEC V-8: identical concurrent requests render once).
actor SingleFlight<Key: Hashable & Sendable, Value: Sendable> {
    private var running: [Key: Task<Value, any Error>] = [:]

    /// The result of `operation` for `key`, started now or joined if already running.
    func run(_ key: Key, _ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        if let task = running[key] { return try await task.value }
        let task = Task { try await operation() }
        running[key] = task
        defer { running[key] = nil }
        return try await task.value
    }
}
