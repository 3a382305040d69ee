#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A POSIX thread that runs one closure and is then either joined — waited for until it has
/// ended, with everything it held released — or detached, to end on its own.
///
/// ``SVGBudgetedRun`` draws on one of these rather than on a Foundation `Thread`, which cannot
/// be joined: a `Thread` lets go of its closure, and so of everything the closure captured (the
/// caller's document, the drawn pixels), while it winds down after the caller already has its
/// result, at a moment no caller can wait for.
struct SVGDrawingThread: ~Copyable {
    private let id: pthread_t

    /// The system could not start a thread.
    struct CannotStart: Error {}

    /// The closure, boxed to pass through `pthread_create`'s context pointer.
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts a thread with a stack of `stackSize` bytes running `body`.
    /// - Throws: ``CannotStart`` when the system cannot start one (then `body` never runs).
    init(stackSize: Int, _ body: @escaping @Sendable () -> Void) throws(CannotStart) {
        // Set up by `pthread_attr_init` (the C union has no Swift initializer here).
        let attributes = UnsafeMutablePointer<pthread_attr_t>.allocate(capacity: 1)
        defer { attributes.deallocate() }
        guard pthread_attr_init(attributes) == 0 else { throw CannotStart() }
        defer { pthread_attr_destroy(attributes) }
        _ = pthread_attr_setstacksize(attributes, stackSize)
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        #if canImport(Darwin)
            var id: pthread_t?
            let created = pthread_create(&id, attributes, { context in
                // The box is released here, before the thread ends: a join waits for that.
                Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
                return nil
            }, context)
            guard created == 0, let id else {
                Unmanaged<Body>.fromOpaque(context).release()
                throw CannotStart()
            }
        #else
            var id = pthread_t()
            let created = pthread_create(&id, attributes, { context in
                // The box is released here, before the thread ends: a join waits for that.
                guard let context else { return nil }
                Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
                return nil
            }, context)
            guard created == 0 else {
                Unmanaged<Body>.fromOpaque(context).release()
                throw CannotStart()
            }
        #endif
        self.id = id
    }

    /// Waits until the thread has ended: its closure and everything the closure captured are
    /// released, and so is its thread-local state.
    consuming func join() {
        _ = pthread_join(id, nil)
    }

    /// Lets the thread end on its own, without anyone waiting for it.
    consuming func detach() {
        _ = pthread_detach(id)
    }
}
