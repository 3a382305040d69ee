import ArgumentParser
import WebImage

/// `--public-only` and `--allow-address`: the downloader's address policy (SPEC R-1) for the
/// commands that load URLs (`fetch`, `prefetch`, `info`, `convert`).
struct AddressPolicyOptions: ParsableArguments {
    @Flag(
        name: .customLong("public-only"),
        help: """
            Connect to public internet addresses only: refuse loopback, private, link-local (the \
            cloud metadata address), carrier-grade NAT, multicast and reserved addresses, \
            checked after DNS resolution for every request and redirect.
            """)
    var publicOnly = false

    @Option(
        name: .customLong("allow-address"),
        help: ArgumentHelp(
            "With --public-only, allow this address or CIDR range anyway (repeatable), e.g. 127.0.0.1/32 or 10.1.0.0/16.",
            valueName: "cidr"))
    var allowedAddresses: [String] = []

    func validate() throws {
        for text in allowedAddresses where IPAddressRange(text) == nil {
            throw ValidationError(
                "--allow-address: '\(text)' is not an IP address or CIDR range (e.g. 127.0.0.1/32, 10.0.0.0/8, ::1/128).")
        }
        if !allowedAddresses.isEmpty && !publicOnly {
            throw ValidationError("--allow-address punches a hole in --public-only: add --public-only.")
        }
    }

    /// ``AddressPolicy/publicInternetOnly`` with the allowed ranges for `--public-only`, else
    /// ``AddressPolicy/permissive``.
    var policy: AddressPolicy {
        guard publicOnly else { return .permissive }
        var policy = AddressPolicy.publicInternetOnly
        policy.allowedRanges = allowedAddresses.compactMap(IPAddressRange.init)
        return policy
    }
}
