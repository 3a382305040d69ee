import Foundation
import NIOCore

/// Resolves a host name with the system resolver (`getaddrinfo`), as AsyncHTTPClient's own
/// connections would. Blocking: the egress proxy calls it on NIO's thread pool, never on an
/// event loop.
enum HostResolver {
    /// Every TCP address of `host` (a name or an IP literal), with `port`.
    /// - Throws: ``/WebImageCore/WebImageError/transport(_:)`` `cannotFindHost` when the name
    ///   does not resolve.
    static func resolve(_ host: String, port: Int) throws -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            let message = status == 0 ? "no addresses" : String(decoding: Array(gaiMessage(status).utf8), as: UTF8.self)
            throw WebImageError.transport(TransportError(.cannotFindHost, "DNS lookup of \(host) failed: \(message)"))
        }
        defer { freeaddrinfo(first) }
        var addresses: [SocketAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry?.pointee {
            if let raw = current.ai_addr {
                switch current.ai_family {
                case AF_INET:
                    let value = UnsafeRawPointer(raw).loadUnaligned(as: sockaddr_in.self)
                    addresses.append(SocketAddress(value, host: host))
                case AF_INET6:
                    let value = UnsafeRawPointer(raw).loadUnaligned(as: sockaddr_in6.self)
                    addresses.append(SocketAddress(value, host: host))
                default:
                    break
                }
            }
            entry = current.ai_next
        }
        guard !addresses.isEmpty else {
            throw WebImageError.transport(TransportError(.cannotFindHost, "DNS lookup of \(host) found no TCP address"))
        }
        return addresses
    }

    private static func gaiMessage(_ status: Int32) -> String {
        guard let text = gai_strerror(status) else { return "error \(status)" }
        return String(validatingCString: text) ?? "error \(status)"
    }
}
