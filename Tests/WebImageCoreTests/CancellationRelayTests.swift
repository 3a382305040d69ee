import Synchronization
import Testing

import WebImageCore

/// The cancel-before-handle relay: a cancellation handler may run before, after or without the
/// handle it cancels.
struct CancellationRelayTests {
    /// A handle that counts its cancels.
    private final class Handle: Sendable {
        let cancels = Mutex(0)
        var cancelCount: Int { cancels.withLock { $0 } }
        func cancel() { cancels.withLock { $0 += 1 } }
    }

    @Test("Given a cancel before the handle exists, when the handle is set, then it is cancelled")
    func cancelBeforeSet() {
        let relay = CancellationRelay<Handle> { $0.cancel() }
        let handle = Handle()
        relay.cancel()
        #expect(handle.cancelCount == 0)
        relay.set(handle)
        #expect(handle.cancelCount == 1)
    }

    @Test("Given a handle set first, when cancelled, then it is cancelled at once")
    func cancelAfterSet() {
        let relay = CancellationRelay<Handle> { $0.cancel() }
        let handle = Handle()
        relay.set(handle)
        #expect(handle.cancelCount == 0)
        relay.cancel()
        #expect(handle.cancelCount == 1)
    }

    @Test("Given no cancel, when the handle is set, then it is left running")
    func setWithoutCancel() {
        let relay = CancellationRelay<Handle> { $0.cancel() }
        let handle = Handle()
        relay.set(handle)
        #expect(handle.cancelCount == 0)
    }

    @Test("Given a task cancelled before its handle arrives, when the handle is set, then the task's cancellation reaches it")
    func taskCancellation() async {
        let relay = CancellationRelay<Handle> { $0.cancel() }
        let handle = Handle()
        let task = Task {
            await withTaskCancellationHandler {
                // Wait for the cancellation, which then has no handle to cancel yet.
                while !Task.isCancelled { await Task.yield() }
            } onCancel: {
                relay.cancel()
            }
        }
        task.cancel()
        await task.value
        relay.set(handle)
        #expect(handle.cancelCount == 1)
    }
}
