/// The special-purpose address tables of SPEC R-1 (IANA's IPv4 and IPv6 special-purpose
/// registries, RFC 6890 and its updates).
extension AddressPolicy {
    private static func ranges(_ table: [(String, AddressClass)]) -> [(IPAddressRange, AddressClass)] {
        table.map { text, addressClass in
            guard let range = IPAddressRange(text) else { preconditionFailure("bad built-in range \(text)") }
            return (range, addressClass)
        }
    }

    /// IPv4: most specific first (`255.255.255.255` before `240.0.0.0/4`).
    static let ipv4Classes = ranges([
        ("255.255.255.255/32", .broadcast),
        ("0.0.0.0/8", .unspecified),
        ("127.0.0.0/8", .loopback),
        ("169.254.0.0/16", .linkLocal),
        ("10.0.0.0/8", .privateNetwork),
        ("172.16.0.0/12", .privateNetwork),
        ("192.168.0.0/16", .privateNetwork),
        ("100.64.0.0/10", .carrierGradeNAT),
        ("224.0.0.0/4", .multicast),
        ("240.0.0.0/4", .reserved),
        ("192.0.0.0/24", .reserved),
        ("192.0.2.0/24", .reserved),
        ("198.51.100.0/24", .reserved),
        ("203.0.113.0/24", .reserved),
        ("198.18.0.0/15", .reserved),
        ("192.88.99.0/24", .reserved),
    ])

    /// IPv6 forms that are not judged by an embedded IPv4 address. `::` and `::1` come before
    /// the IPv4-compatible range `::/96` they sit in.
    static let ipv6Classes = ranges([
        ("::/128", .unspecified),
        ("::1/128", .loopback),
        ("fe80::/10", .linkLocal),
        ("fc00::/7", .privateNetwork),
        ("fec0::/10", .privateNetwork),
        ("ff00::/8", .multicast),
        ("100::/64", .reserved),
        ("64:ff9b:1::/48", .reserved),
        ("2001:db8::/32", .reserved),
        ("2001:2::/48", .reserved),
        ("2001:10::/28", .reserved),
        ("2001:20::/28", .reserved),
        ("3fff::/20", .reserved),
    ])

    /// The class of `address`; `nil` for the public internet.
    static func addressClass(of address: IPAddress) -> AddressClass? {
        switch address {
        case .v4:
            return ipv4Classes.first { $0.0.contains(address) }?.1
        case .v6(let high, _):
            if let found = ipv6Classes.first(where: { $0.0.contains(address) }) { return found.1 }
            if let embedded = embeddedIPv4(in: address) { return addressClass(of: embedded) }
            // Global unicast is 2000::/3; everything else unlisted is unassigned.
            return high >> 61 == 0b001 ? nil : .reserved
        }
    }

    /// The IPv4 address an IPv6 form carries: IPv4-mapped `::ffff:0:0/96`, IPv4-translated
    /// `::ffff:0:0:0/96`, IPv4-compatible `::/96` (not `::` or `::1`), NAT64 `64:ff9b::/96`,
    /// 6to4 `2002::/16` (bits 16–47) and Teredo `2001::/32` (the client address, bits 96–127
    /// inverted).
    static func embeddedIPv4(in address: IPAddress) -> IPAddress? {
        guard case .v6(let high, let low) = address else { return nil }
        let last32 = UInt32(truncatingIfNeeded: low)
        let upper64OfLow = low >> 32
        if high == 0 {
            switch upper64OfLow {
            case 0x0000_ffff: return .v4(last32)  // ::ffff:a.b.c.d
            case 0xffff_0000: return .v4(last32)  // ::ffff:0:a.b.c.d
            case 0 where last32 > 1: return .v4(last32)  // ::a.b.c.d
            default: return nil
            }
        }
        if high == 0x0064_ff9b_0000_0000, upper64OfLow == 0 { return .v4(last32) }
        if high >> 48 == 0x2002 { return .v4(UInt32(truncatingIfNeeded: high >> 16)) }
        if high >> 32 == 0x2001_0000 { return .v4(~last32) }
        return nil
    }
}
