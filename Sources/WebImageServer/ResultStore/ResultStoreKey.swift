import Crypto
import Foundation

/// The name of a result in a ``ResultStore``: the hex SHA-256 of the canonical request — the
/// normalised source URL, the processing options after presets (their canonical form, which
/// includes the cache buster), how the output format is chosen, and the server settings that
/// change the rendered bytes (``ImageServiceConfiguration/outputFingerprint``). The signature, the option
/// order in the URL, the preset names used and `expires` are not part of it, so every URL that
/// asks for the same result finds the same entry.
public struct ResultStoreKey: Hashable, Sendable, CustomStringConvertible {
    /// 64 lowercase hex digits.
    public let name: String

    /// The key of an already canonical request text.
    public init(canonicalRequest: String) {
        let digest = SHA256.hash(data: Data(canonicalRequest.utf8))
        name = digest.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// The key of a normalised `source`, its processing options (canonical form), the output
    /// format choice (`fixed:webp`, `negotiated:avif`, `source`; `info:4x3` or `info:auto` for
    /// an `/info` answer) and the deployment's output settings
    /// (``ImageServiceConfiguration/outputFingerprint``): instances whose settings render other
    /// bytes for the same URL never share an entry.
    public init(source: String, options: ProcessingOptions, formatChoice: String, outputSettings: String) {
        self.init(canonicalRequest: "result-store-v2\n\(outputSettings)\n\(source)\n\(options.canonicalForm)\n\(formatChoice)")
    }

    /// The key named `name` (as an entry's header gives it), or `nil` when `name` is not 64
    /// lowercase hex digits.
    init?(name: String) {
        guard name.utf8.count == 64,
            name.utf8.allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "f")) })
        else { return nil }
        self.name = name
    }

    public var description: String { name }
}
