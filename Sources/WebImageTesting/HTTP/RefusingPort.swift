import Foundation
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A loopback port that refuses every connection, held for as long as this object lives: a TCP
/// socket bound to 127.0.0.1 that never listens, so connecting gets `ECONNREFUSED` — and,
/// unlike a port some server just released, no other test's server can take the port in the
/// meantime.
public final class RefusingPort: Sendable {
    /// The reserved port.
    public let port: Int
    private let descriptor: Int32

    /// Reserves a free port; `nil` when no socket can be bound.
    public init?() {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> URL {
        // Built from an integer port and a test-supplied path.
        URL(string: "http://127.0.0.1:\(port)\(path)") ?? URL(fileURLWithPath: "/")
    }
}
