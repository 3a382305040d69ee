import NIOCore
import Synchronization

/// The client connections of one server, and which of them are idle keep-alive connections
/// (a response sent, nothing of the next request received). When the connections reach the
/// client cap (`max-clients`), the one idle the longest is closed, so the cap never keeps a
/// new client waiting behind connections that only wait themselves (SPEC V-7). Connections that
/// have not sent a request yet are not idle keep-alive connections: the first-byte timeout
/// closes them.
///
/// At the cap an idle connection is closed whether or not a client is waiting (a waiting one is
/// still in the listen backlog, where it cannot be seen), and at most one at a time: the next
/// only once the last has closed. Every connection reports through its
/// ``KeepAliveTracker``, on its own event loop.
final class KeepAliveConnections: Sendable {
    private struct Idle {
        var since: UInt64
        var channel: any Channel
    }

    private struct State {
        var open = 0
        var nextID: UInt64 = 0
        var clock: UInt64 = 0
        var idle: [UInt64: Idle] = [:]
        /// Connections closed for the cap that have not ended yet.
        var shedding: Set<UInt64> = []
    }

    /// The client cap.
    let maxClients: Int
    private let onShed: @Sendable () -> Void
    private let state = Mutex(State())

    /// Connections capped at `maxClients`; `onShed` is called for each idle one closed.
    init(maxClients: Int, onShed: @escaping @Sendable () -> Void = {}) {
        self.maxClients = max(1, maxClients)
        self.onShed = onShed
    }

    /// A connection opened; returns its id.
    func opened() -> UInt64 {
        let (id, victim) = state.withLock { state -> (UInt64, (any Channel)?) in
            state.open += 1
            state.nextID += 1
            return (state.nextID, shed(&state))
        }
        close(victim)
        return id
    }

    /// Connection `id` is idle: its responses are sent and nothing more has arrived.
    func becameIdle(_ id: UInt64, channel: any Channel) {
        let victim = state.withLock { state -> (any Channel)? in
            guard !state.shedding.contains(id) else { return nil }
            state.clock += 1
            state.idle[id] = Idle(since: state.clock, channel: channel)
            return shed(&state)
        }
        close(victim)
    }

    /// Connection `id` is receiving or answering a request.
    func becameBusy(_ id: UInt64) {
        _ = state.withLock { $0.idle.removeValue(forKey: id) }
    }

    /// Connection `id` ended. When it was closed for the cap and the connections are still at
    /// the cap (a client accepted meanwhile), the next idle one goes: otherwise connections that
    /// turned idle while it was closing would stay open until their keep-alive timeout.
    func closed(_ id: UInt64) {
        let victim = state.withLock { state -> (any Channel)? in
            state.open -= 1
            state.idle.removeValue(forKey: id)
            state.shedding.remove(id)
            return shed(&state)
        }
        close(victim)
    }

    private func close(_ victim: (any Channel)?) {
        guard let victim else { return }
        onShed()
        victim.close(promise: nil)
    }

    /// At the cap, with no other connection closing for it: takes the connection idle the
    /// longest out of the idle ones and returns it to be closed (outside the lock).
    private func shed(_ state: inout State) -> (any Channel)? {
        guard state.open - state.shedding.count >= maxClients, state.shedding.isEmpty,
            let oldest = state.idle.min(by: { $0.value.since < $1.value.since })
        else { return nil }
        state.idle.removeValue(forKey: oldest.key)
        state.shedding.insert(oldest.key)
        return oldest.value.channel
    }
}
