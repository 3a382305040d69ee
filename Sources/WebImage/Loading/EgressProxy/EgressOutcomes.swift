import Foundation
import Synchronization

/// What the egress proxy did with the last `CONNECT` to each target, so the downloader can turn
/// AsyncHTTPClient's bare "invalid proxy response" into the real reason (SPEC R-1).
///
/// An outcome is recorded before the proxy answers the `CONNECT`, so when the client reports the
/// failure the entry for its target is already there. Keyed by `host:port` as the client sends
/// it (lower case, IPv6 without brackets); at most ``capacity`` targets are kept, the oldest
/// dropped first.
final class EgressOutcomes: Sendable {
    /// Why the proxy did not open a tunnel.
    enum Failure: Sendable, Equatable {
        /// The policy refused the host name (`address` empty) or a resolved address.
        case refused(host: String, address: String, reason: String)
        /// The host could not be resolved or no checked address accepted the connection.
        case failed(TransportError)

        var error: WebImageError {
            switch self {
            case .refused(let host, let address, let reason): .addressRefused(host: host, address: address, reason: reason)
            case .failed(let transport): .transport(transport)
            }
        }
    }

    static let capacity = 1024

    private struct State {
        var failures: [String: Failure] = [:]
        var order: [String] = []
    }

    private let state = Mutex(State())

    /// The table key of `host` and `port`.
    static func key(host: String, port: Int) -> String {
        "\(AddressPolicy.bracketsRemoved(host.lowercased())):\(port)"
    }

    /// The table key of the connection `url` needs (default ports 80 and 443).
    static func key(for url: URL) -> String? {
        guard let host = url.host, let scheme = url.scheme?.lowercased() else { return nil }
        return key(host: host, port: url.port ?? (scheme == "https" ? 443 : 80))
    }

    func record(_ failure: Failure, for key: String) {
        state.withLock { state in
            if state.failures.updateValue(failure, forKey: key) == nil {
                state.order.append(key)
                if state.order.count > Self.capacity {
                    let oldest = state.order.removeFirst()
                    state.failures[oldest] = nil
                }
            }
        }
    }

    /// Forgets `key` after a tunnel to it opened.
    func clear(_ key: String) {
        state.withLock { state in
            if state.failures.removeValue(forKey: key) != nil { state.order.removeAll { $0 == key } }
        }
    }

    func failure(for key: String) -> Failure? {
        state.withLock { $0.failures[key] }
    }
}
