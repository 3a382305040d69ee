/// An IPv4 or IPv6 CIDR range such as `"127.0.0.1/32"`, `"10.0.0.0/8"`, `"::1/128"`, or a bare
/// address (a range of one) — the allow and deny lists of an ``AddressPolicy`` (SPEC R-1).
///
/// Bits below the prefix are ignored (`"10.1.2.3/8"` is `10.0.0.0/8`). An IPv4 range also
/// covers the IPv6 forms that embed an address in it (IPv4-mapped `::ffff:a.b.c.d`, NAT64,
/// 6to4, Teredo …), since those are judged by the embedded IPv4 address.
public struct IPAddressRange: Sendable, Hashable, CustomStringConvertible {
    /// The first address of the range (host bits zero).
    let network: IPAddress
    /// The number of leading bits that must match: 0…32 for IPv4, 0…128 for IPv6.
    public let prefixLength: Int

    /// Parses `"address/prefix"` or a bare address; `nil` when `text` is neither (IPv4 must be
    /// dotted-quad; the prefix must fit the family).
    public init?(_ text: String) {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2, let address = IPAddress(String(parts[0])) else { return nil }
        var length = address.bitWidth
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
                let value = Int(digits), value <= address.bitWidth
            else { return nil }
            length = value
        }
        self.init(network: address, prefixLength: length)
    }

    init(network: IPAddress, prefixLength: Int) {
        self.network = network.masked(to: prefixLength)
        self.prefixLength = prefixLength
    }

    /// Whether `address` (text, e.g. `"10.1.2.3"`, `"::ffff:10.1.2.3"`) is inside the range,
    /// directly or through the IPv4 address an IPv6 form embeds.
    public func contains(_ address: String) -> Bool {
        guard let address = IPAddress(address) else { return false }
        return contains(address) || AddressPolicy.embeddedIPv4(in: address).map(contains) == true
    }

    /// Whether `address` itself (no embedding) is inside the range.
    func contains(_ address: IPAddress) -> Bool {
        address.isIPv4 == network.isIPv4 && address.masked(to: prefixLength) == network
    }

    /// `network/prefix`, e.g. `10.0.0.0/8`.
    public var description: String { "\(network)/\(prefixLength)" }
}

import Foundation
