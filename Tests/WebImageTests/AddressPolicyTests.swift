import Testing
import WebImage
import WebImageCore

@Suite("Address policy classes, ranges and precedence (R-1)")
struct AddressPolicyTests {
    typealias AddressClass = AddressPolicy.AddressClass

    @Test(
        "Given an address of each class, IPv4 and IPv6, then it gets that class",
        arguments: [
            ("127.0.0.1", AddressClass.loopback), ("127.255.255.254", .loopback), ("::1", .loopback),
            ("0.0.0.0", .unspecified), ("0.1.2.3", .unspecified), ("::", .unspecified),
            ("169.254.169.254", .linkLocal), ("169.254.0.1", .linkLocal), ("fe80::1", .linkLocal), ("febf::1", .linkLocal),
            ("10.0.0.1", .privateNetwork), ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork),
            ("192.168.1.1", .privateNetwork), ("fc00::1", .privateNetwork), ("fd12:3456::1", .privateNetwork),
            ("100.64.0.1", .carrierGradeNAT), ("100.127.255.255", .carrierGradeNAT),
            ("224.0.0.1", .multicast), ("239.255.255.250", .multicast), ("ff02::1", .multicast),
            ("255.255.255.255", .broadcast),
            ("240.0.0.1", .reserved), ("192.0.0.8", .reserved), ("192.0.2.1", .reserved), ("198.51.100.7", .reserved),
            ("203.0.113.9", .reserved), ("198.18.0.1", .reserved), ("198.19.255.255", .reserved), ("2001:db8::1", .reserved),
            ("100::1", .reserved), ("4000::1", .reserved),
        ])
    func classes(address: String, expected: AddressClass) {
        #expect(AddressPolicy.addressClass(of: address) == expected, "\(address)")
    }

    @Test(
        "Given a public address or one just outside a special range, then it has no class",
        arguments: [
            "8.8.8.8", "1.1.1.1", "93.184.216.34", "172.15.255.255", "172.32.0.0", "100.63.255.255", "100.128.0.0",
            "169.253.255.255", "11.0.0.1", "223.255.255.255", "192.0.3.1", "198.20.0.0", "2606:4700::1111", "2a00:1450::1",
        ])
    func publicAddresses(address: String) {
        #expect(AddressPolicy.addressClass(of: address) == nil, "\(address)")
    }

    @Test(
        "Given IPv6 forms embedding IPv4 (mapped, translated, compatible, 6to4, NAT64, Teredo), then the embedded address decides",
        arguments: [
            ("::ffff:127.0.0.1", AddressClass?.some(.loopback)), ("::ffff:7f00:1", .loopback),
            ("::ffff:169.254.169.254", .linkLocal), ("::ffff:8.8.8.8", nil),
            ("::ffff:0:10.0.0.1", .privateNetwork),
            ("::127.0.0.1", .loopback), ("::10.1.2.3", .privateNetwork), ("::8.8.8.8", nil),
            ("2002:7f00:1::", .loopback), ("2002:a9fe:a9fe::1", .linkLocal), ("2002:c0a8:0101::", .privateNetwork),
            ("2002:0808:0808::1", nil),
            ("64:ff9b::127.0.0.1", .loopback), ("64:ff9b::a9fe:a9fe", .linkLocal), ("64:ff9b::808:808", nil),
            // Teredo: the client address is the last 32 bits inverted (127.0.0.1 → 80ff:fffe).
            ("2001:0:4136:e378:8000:63bf:80ff:fffe", .loopback), ("2001:0:4136:e378:8000:63bf:f5ff:fffe", .privateNetwork),
            ("2001:0:4136:e378:8000:63bf:f7f7:f7f7", nil),
        ])
    func embeddedIPv4(address: String, expected: AddressClass?) {
        #expect(AddressPolicy.addressClass(of: address) == expected, "\(address)")
    }

    @Test("Given .publicInternetOnly, then every class is refused with its name and public addresses pass")
    func publicInternetOnly() {
        let policy = AddressPolicy.publicInternetOnly
        #expect(Set(AddressClass.allCases) == policy.deniedClasses)
        #expect(policy.refusalReason(forAddress: "169.254.169.254") == "link-local address")
        #expect(policy.refusalReason(forAddress: "127.0.0.1") == "loopback address")
        #expect(policy.refusalReason(forAddress: "::ffff:127.0.0.1")?.contains("loopback address") == true)
        #expect(policy.refusalReason(forAddress: "100.64.1.1") == "carrier-grade NAT address")
        #expect(policy.refusalReason(forAddress: "8.8.8.8") == nil)
        #expect(policy.refusalReason(forAddress: "2606:4700::1111") == nil)
        #expect(policy.refusalReason(forAddress: "not an address") != nil)
        #expect(AddressPolicy.permissive.refusalReason(forAddress: "127.0.0.1") == nil)
        #expect(AddressPolicy.permissive.refusalReason(forHost: "anything") == nil)
    }

    @Test("Given CIDR text, then it parses strictly, masks host bits and matches by prefix")
    func ranges() throws {
        let range = try #require(IPAddressRange("10.1.2.3/8"))
        #expect(range.description == "10.0.0.0/8")
        #expect(range.contains("10.255.0.1") && !range.contains("11.0.0.1"))
        #expect(range.contains("::ffff:10.9.9.9"))  // an embedded IPv4 address is inside
        #expect(IPAddressRange("127.0.0.1")?.description == "127.0.0.1/32")
        #expect(IPAddressRange("::1")?.description == "::1/128")
        #expect(IPAddressRange("fc00::/7")?.contains("fdff::1") == true)
        #expect(IPAddressRange("fc00::/7")?.contains("fe00::1") == false)
        #expect(IPAddressRange("0.0.0.0/0")?.contains("203.0.113.1") == true)
        #expect(IPAddressRange("0.0.0.0/0")?.contains("2001:db8::1") == false)  // families do not mix
        #expect(IPAddressRange("2001:db8::/32")?.contains("2001:db8:ffff::1") == true)
        for bad in ["", "10.0.0.0/33", "::/129", "10.0.0/8", "127.1", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/8/8", "host/8", "1.2.3.4/ 8"] {
            #expect(IPAddressRange(bad) == nil, "\(bad)")
        }
    }

    @Test("Given allow and deny rules, then denied ranges beat allowed ranges, which beat denied classes")
    func precedence() throws {
        var policy = AddressPolicy.publicInternetOnly
        policy.allowedRanges = [try #require(IPAddressRange("10.0.0.0/8")), try #require(IPAddressRange("127.0.0.1/32"))]
        policy.deniedRanges = [try #require(IPAddressRange("10.0.0.5/32")), try #require(IPAddressRange("8.8.4.0/24"))]
        #expect(policy.refusalReason(forAddress: "10.1.1.1") == nil)  // allowed range over class
        #expect(policy.refusalReason(forAddress: "127.0.0.1") == nil)
        #expect(policy.refusalReason(forAddress: "127.0.0.2") == "loopback address")  // the hole is one address
        #expect(policy.refusalReason(forAddress: "10.0.0.5") == "address in the denied range 10.0.0.5/32")  // denied over allowed
        #expect(policy.refusalReason(forAddress: "::ffff:10.0.0.5") == "address in the denied range 10.0.0.5/32")
        #expect(policy.refusalReason(forAddress: "8.8.4.4") == "address in the denied range 8.8.4.0/24")  // public but denied
        #expect(policy.refusalReason(forAddress: "8.8.8.8") == nil)
        // Without denied classes, only the ranges apply.
        let rangesOnly = AddressPolicy(deniedRanges: [try #require(IPAddressRange("192.168.0.0/16"))])
        #expect(rangesOnly.refusalReason(forAddress: "192.168.1.1") != nil)
        #expect(rangesOnly.refusalReason(forAddress: "10.0.0.1") == nil)
    }

    @Test("Given an allowed-hosts list, then host names match case-insensitively, ignoring a trailing dot, and *. admits subdomains")
    func allowedHosts() {
        let policy = AddressPolicy(allowedHosts: ["Images.Example.com", "*.cdn.example.net"])
        #expect(policy.refusalReason(forHost: "images.example.com") == nil)
        #expect(policy.refusalReason(forHost: "IMAGES.EXAMPLE.COM.") == nil)
        #expect(policy.refusalReason(forHost: "a.b.cdn.example.net") == nil)
        #expect(policy.refusalReason(forHost: "cdn.example.net") != nil)
        #expect(policy.refusalReason(forHost: "evilcdn.example.net") != nil)
        #expect(policy.refusalReason(forHost: "example.com") == "host not on the allowed-hosts list")
        #expect(policy.refusalReason(forHost: "images.example.com.evil.org") != nil)
    }

    @Test("Given the new error cases, then their names are stable and their texts say what happened")
    func errors() {
        let refused = WebImageError.addressRefused(host: "localhost", address: "127.0.0.1", reason: "loopback address")
        #expect(refused.code == "addressRefused")
        #expect(refused.description == "refused to connect to localhost (127.0.0.1) by the address policy: loopback address")
        let literal = WebImageError.addressRefused(host: "127.0.0.1", address: "127.0.0.1", reason: "loopback address")
        #expect(literal.description == "refused to connect to 127.0.0.1 by the address policy: loopback address")
        let unsupported = WebImageError.unsupportedURL(scheme: "ftp")
        #expect(unsupported.code == "unsupportedURL")
        #expect(unsupported.description.contains("\"ftp\""))
    }
}
