/// Which resolved addresses a download may connect to (SPEC R-1).
///
/// The ``ImageDownloader`` checks every address a host name resolves to, at connect time, for
/// the first request and for every redirect; a refused address fails the download with
/// ``/WebImageCore/WebImageError/addressRefused(host:address:reason:)`` and receives no byte.
/// The rules, strongest first:
///
/// 1. ``allowedHosts``, when set, is checked on the host name before anything is resolved.
/// 2. An address in ``deniedRanges`` is refused.
/// 3. An address in ``allowedRanges`` is allowed.
/// 4. An address whose ``AddressClass`` is in ``deniedClasses`` is refused.
/// 5. Anything else is allowed.
///
/// A host name is refused when any of the addresses it resolves to is refused (a mix of public
/// and private answers is how DNS rebinding attacks look). IPv6 forms that embed an IPv4 address
/// (IPv4-mapped, IPv4-compatible, 6to4, NAT64, Teredo) are judged by the embedded address.
///
/// ```swift
/// var configuration = ImageDownloaderConfiguration()
/// configuration.addressPolicy = .publicInternetOnly
/// configuration.addressPolicy.allowedRanges = [IPAddressRange("10.1.2.0/24")!]  // one LAN subnet
/// ```
public struct AddressPolicy: Sendable, Hashable {
    /// A class of addresses that is not the public internet.
    public enum AddressClass: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// `127.0.0.0/8`, `::1`.
        case loopback
        /// `0.0.0.0/8`, `::`.
        case unspecified
        /// `169.254.0.0/16` (the cloud metadata address 169.254.169.254), `fe80::/10`.
        case linkLocal
        /// `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`, `fc00::/7` (unique local), `fec0::/10`
        /// (deprecated site-local).
        case privateNetwork
        /// `100.64.0.0/10` (carrier-grade NAT, RFC 6598).
        case carrierGradeNAT
        /// `224.0.0.0/4`, `ff00::/8`.
        case multicast
        /// `255.255.255.255`.
        case broadcast
        /// Special-purpose ranges no web server lives on: `240.0.0.0/4`, `192.0.0.0/24`,
        /// `198.18.0.0/15` (benchmarking), the documentation ranges (`192.0.2.0/24`,
        /// `198.51.100.0/24`, `203.0.113.0/24`, `2001:db8::/32`, `3fff::/20`),
        /// `192.88.99.0/24` (6to4 relays), `100::/64` (discard), `2001:2::/48`, `2001:10::/28`,
        /// `2001:20::/28`, `64:ff9b:1::/48`, and IPv6 outside `2000::/3` not listed elsewhere.
        case reserved

        /// The class in words, e.g. `link-local`.
        public var description: String {
            switch self {
            case .loopback: "loopback"
            case .unspecified: "unspecified"
            case .linkLocal: "link-local"
            case .privateNetwork: "private network"
            case .carrierGradeNAT: "carrier-grade NAT"
            case .multicast: "multicast"
            case .broadcast: "broadcast"
            case .reserved: "reserved"
            }
        }
    }

    /// Classes refused unless an address is in ``allowedRanges``.
    public var deniedClasses: Set<AddressClass>
    /// Holes punched in ``deniedClasses``: addresses here are allowed whatever their class.
    public var allowedRanges: [IPAddressRange]
    /// Always refused; wins over everything else.
    public var deniedRanges: [IPAddressRange]
    /// Host names that may be requested (case-insensitive, a trailing dot ignored; an entry
    /// `*.example.com` admits every subdomain of `example.com`), or `nil` (default) for any.
    /// The addresses of an admitted host are still checked.
    public var allowedHosts: Set<String>?

    /// A policy from its parts; the defaults deny nothing.
    public init(
        deniedClasses: Set<AddressClass> = [], allowedRanges: [IPAddressRange] = [], deniedRanges: [IPAddressRange] = [],
        allowedHosts: Set<String>? = nil
    ) {
        self.deniedClasses = deniedClasses
        self.allowedRanges = allowedRanges
        self.deniedRanges = deniedRanges
        self.allowedHosts = allowedHosts
    }

    /// Nothing denied: the library default, since an app may load images from its own machine
    /// or LAN (a development server, a NAS, a printer's web page).
    public static let permissive = AddressPolicy()

    /// Every ``AddressClass`` denied: only public internet addresses. For servers that fetch
    /// URLs given by strangers.
    public static let publicInternetOnly = AddressPolicy(deniedClasses: Set(AddressClass.allCases))

    /// Whether the policy refuses nothing (the downloader then installs no egress proxy).
    var isPermissive: Bool { deniedClasses.isEmpty && deniedRanges.isEmpty && allowedHosts == nil }

    /// Why a request to `host` is refused before resolving, or `nil` when the host name may be
    /// requested (then its resolved addresses are checked with ``refusalReason(forAddress:)``).
    public func refusalReason(forHost host: String) -> String? {
        guard let allowedHosts else { return nil }
        let name = Self.normalizedHost(host)
        for entry in allowedHosts {
            let pattern = Self.normalizedHost(entry)
            if pattern == name { return nil }
            if pattern.hasPrefix("*."), name.hasSuffix(pattern.dropFirst()) { return nil }
        }
        return "host not on the allowed-hosts list"
    }

    /// Why `address` (text such as `"10.0.0.1"` or `"::ffff:127.0.0.1"`) is refused — the
    /// class or the rule, e.g. `"loopback address"` or `"address in the denied range
    /// 10.0.0.0/8"` — or `nil`
    /// when it is allowed. Text that is not an IP address is refused.
    public func refusalReason(forAddress address: String) -> String? {
        guard let parsed = IPAddress(address) else { return "not an IP address" }
        return refusalReason(for: parsed)
    }

    func refusalReason(for address: IPAddress) -> String? {
        let embedded = Self.embeddedIPv4(in: address)
        let forms = [address] + (embedded.map { [$0] } ?? [])
        if let range = deniedRanges.first(where: { range in forms.contains(where: range.contains) }) {
            return "address in the denied range \(range)"
        }
        if allowedRanges.contains(where: { range in forms.contains(where: range.contains) }) { return nil }
        guard let addressClass = Self.addressClass(of: address), deniedClasses.contains(addressClass) else { return nil }
        if let embedded { return "\(addressClass) address (\(address) embeds \(embedded))" }
        return "\(addressClass) address"
    }

    /// The class of `address` (text), or `nil` for a public address or text that is not an IP
    /// address. IPv6 forms embedding IPv4 get the class of the embedded address.
    public static func addressClass(of address: String) -> AddressClass? {
        IPAddress(address).flatMap(addressClass(of:))
    }

    /// Lower case, without brackets or a trailing dot.
    static func normalizedHost(_ host: String) -> String {
        var name = Substring(bracketsRemoved(host.lowercased()))
        while name.hasSuffix(".") { name = name.dropLast() }
        return String(name)
    }

    /// `host` without the brackets of an IPv6 literal (`[::1]` → `::1`).
    static func bracketsRemoved(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") && host.count >= 2 ? String(host.dropFirst().dropLast()) : host
    }
}
