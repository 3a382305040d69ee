/// Growable float storage for the metric's planes and rows, reused from one comparison to the
/// next. It only grows; its contents are unspecified after ``reserve(_:)`` grows it.
///
/// Not thread-safe: one owner at a time (the scorer that holds it).
final class FloatScratch {
    private(set) var pointer: UnsafeMutablePointer<Float>
    private(set) var capacity: Int

    init() {
        capacity = 8
        pointer = .allocate(capacity: capacity)
    }

    deinit { pointer.deallocate() }

    /// Makes room for `count` floats (at least).
    func reserve(_ count: Int) {
        guard count > capacity else { return }
        pointer.deallocate()
        capacity = count
        pointer = .allocate(capacity: count)
    }

    /// Sets the first `count` floats to zero.
    func zero(_ count: Int) {
        pointer.update(repeating: 0, count: count)
    }
}
