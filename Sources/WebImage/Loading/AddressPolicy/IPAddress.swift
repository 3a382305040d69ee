import Foundation

/// An IPv4 or IPv6 address as numbers, for classification and CIDR matching (SPEC R-1).
///
/// Parsing is strict (`inet_pton`): dotted-quad IPv4 only, so shorthands such as `127.1` are not
/// addresses here. The egress proxy never judges text a resolver might read differently: it
/// classifies the binary addresses `getaddrinfo` returned.
enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    case v4(UInt32)
    case v6(high: UInt64, low: UInt64)

    /// Parses `text` (`"192.0.2.1"`, `"::1"`, `"[::1]"`, `"fe80::1%eth0"`), or `nil`.
    init?(_ text: String) {
        var text = Substring(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = text.dropFirst().dropLast() }
        if let zone = text.firstIndex(of: "%") { text = text[..<zone] }
        guard !text.isEmpty, text.count <= 64 else { return nil }
        let string = String(text)
        if !string.contains(":") {
            var address = in_addr()
            guard inet_pton(AF_INET, string, &address) == 1 else { return nil }
            self = .v4(UInt32(bigEndian: address.s_addr))
        } else {
            var address = in6_addr()
            guard inet_pton(AF_INET6, string, &address) == 1 else { return nil }
            self.init(ipv6Bytes: withUnsafeBytes(of: address) { Array($0) })
        }
    }

    /// An IPv6 address from its 16 network-order bytes.
    init(ipv6Bytes bytes: [UInt8]) {
        precondition(bytes.count == 16)
        var high: UInt64 = 0
        var low: UInt64 = 0
        for index in 0..<8 { high = high << 8 | UInt64(bytes[index]) }
        for index in 8..<16 { low = low << 8 | UInt64(bytes[index]) }
        self = .v6(high: high, low: low)
    }

    /// The address of a resolved socket address (`nil` for other families).
    init?(_ address: sockaddr_storage) {
        var address = address
        switch Int32(address.ss_family) {
        case AF_INET:
            let value = withUnsafeBytes(of: &address) { $0.load(as: sockaddr_in.self) }
            self = .v4(UInt32(bigEndian: value.sin_addr.s_addr))
        case AF_INET6:
            let value = withUnsafeBytes(of: &address) { $0.load(as: sockaddr_in6.self) }
            self.init(ipv6Bytes: withUnsafeBytes(of: value.sin6_addr) { Array($0) })
        default:
            return nil
        }
    }

    var isIPv4: Bool {
        if case .v4 = self { true } else { false }
    }

    /// The address's bit count: 32 or 128.
    var bitWidth: Int { isIPv4 ? 32 : 128 }

    /// The top `count` bits kept, the rest zero.
    func masked(to count: Int) -> IPAddress {
        switch self {
        case .v4(let value):
            return .v4(count <= 0 ? 0 : count >= 32 ? value : value & ~(UInt32.max >> UInt32(count)))
        case .v6(let high, let low):
            let highMask: UInt64 = count <= 0 ? 0 : count >= 64 ? .max : ~(UInt64.max >> UInt64(count))
            let lowMask: UInt64 = count <= 64 ? 0 : count >= 128 ? .max : ~(UInt64.max >> UInt64(count - 64))
            return .v6(high: high & highMask, low: low & lowMask)
        }
    }

    /// The canonical text form (`inet_ntop`).
    var description: String {
        switch self {
        case .v4(let value):
            return "\(value >> 24).\(value >> 16 & 0xff).\(value >> 8 & 0xff).\(value & 0xff)"
        case .v6(let high, let low):
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { raw in
                for index in 0..<8 { raw[index] = UInt8(truncatingIfNeeded: high >> UInt64(56 - 8 * index)) }
                for index in 0..<8 { raw[8 + index] = UInt8(truncatingIfNeeded: low >> UInt64(56 - 8 * index)) }
            }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
