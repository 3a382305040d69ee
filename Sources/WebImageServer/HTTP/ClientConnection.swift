import Hummingbird
import NIOCore
import NIOHTTP1
import Synchronization

/// Whether the client of one HTTP connection is still there, and what to cancel when it goes
/// (SPEC V-8). One per connection, kept by ``ClientDisconnectHandler``.
final class ClientConnection: Sendable {
    private struct State {
        var gone = false
        var nextToken: UInt64 = 0
        var cancellers: [UInt64: @Sendable () -> Void] = [:]
    }
    private let state = Mutex(State())

    /// Whether the client closed its side (or the connection ended).
    var isGone: Bool { state.withLock { $0.gone } }

    /// Runs `cancel` when the client goes away; `nil` (and `cancel` not kept) when it is
    /// already gone. Give the token back with ``forget(_:)`` when the work ends.
    func onGone(_ cancel: @escaping @Sendable () -> Void) -> UInt64? {
        state.withLock { state in
            guard !state.gone else { return nil }
            state.nextToken &+= 1
            state.cancellers[state.nextToken] = cancel
            return state.nextToken
        }
    }

    /// Stops watching for the work `token` names.
    func forget(_ token: UInt64) {
        _ = state.withLock { $0.cancellers.removeValue(forKey: token) }
    }

    /// The client went away: cancel whatever is registered, once.
    func clientWentAway() {
        let cancellers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.gone else { return [] }
            state.gone = true
            defer { state.cancellers = [:] }
            return Array(state.cancellers.values)
        }
        for cancel in cancellers { cancel() }
    }

    /// Runs `operation` in a task of its own that is cancelled if the client goes away first
    /// (or if the caller is cancelled).
    func cancellingOnClose<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let work = requestTask { try await operation() }
        guard let token = onGone({ work.cancel() }) else {
            work.cancel()
            return try await work.value
        }
        defer { forget(token) }
        return try await withTaskCancellationHandler {
            try await work.value
        } onCancel: {
            work.cancel()
        }
    }

    /// The connections of every channel that has a ``ClientDisconnectHandler``, by channel.
    private static let registry = Mutex<[ObjectIdentifier: ClientConnection]>([:])

    /// The connection record of `channel`, if its pipeline has a ``ClientDisconnectHandler``.
    static func of(_ channel: any Channel) -> ClientConnection? {
        registry.withLock { $0[ObjectIdentifier(channel)] }
    }

    /// Records `connection` as `channel`'s (``ClientDisconnectHandler`` only).
    static func register(_ connection: ClientConnection, for channel: any Channel) {
        registry.withLock { $0[ObjectIdentifier(channel)] = connection }
    }

    /// Forgets `channel`'s record (``ClientDisconnectHandler`` only).
    static func unregister(_ channel: any Channel) {
        _ = registry.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}
