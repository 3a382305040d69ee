import Crypto
import Foundation

/// Signs and verifies image-service paths the way imgproxy does (SPEC V-3):
/// `base64url(HMAC-SHA256(key, salt ‖ path))` without padding, optionally truncated to the
/// first ``signatureSize`` bytes of the digest.
///
/// Several key/salt pairs may be configured at once (key rotation): a signature made with any
/// of them verifies; ``sign(_:)`` always uses the first pair.
public struct URLSigner: Sendable {
    /// One HMAC key and the salt prepended to every signed path.
    public struct KeyPair: Sendable, Hashable {
        /// The raw key bytes.
        public var key: [UInt8]
        /// The raw salt bytes.
        public var salt: [UInt8]

        /// A pair from raw bytes.
        public init(key: [UInt8], salt: [UInt8]) {
            self.key = key
            self.salt = salt
        }

        /// A pair from hex text, as imgproxy's `IMGPROXY_KEY` / `IMGPROXY_SALT` take them;
        /// `nil` when either is not even-length hex or the key is empty.
        public init?(hexKey: String, hexSalt: String) {
            guard let key = HexBytes.decode(hexKey), !key.isEmpty,
                  let salt = HexBytes.decode(hexSalt) else { return nil }
            self.init(key: key, salt: salt)
        }
    }

    /// The configured pairs; the first signs.
    public let keyPairs: [KeyPair]
    /// Bytes of the digest kept in a signature (1...32; imgproxy's default is 32).
    public let signatureSize: Int

    /// A signer over `keyPairs` (at least one) keeping `signatureSize` bytes (clamped to 1...32).
    public init(keyPairs: [KeyPair], signatureSize: Int = 32) {
        precondition(!keyPairs.isEmpty, "URLSigner needs at least one key/salt pair")
        self.keyPairs = keyPairs
        self.signatureSize = min(max(signatureSize, 1), 32)
    }

    /// The signature of `path` (which starts with `/`, the part after the signature segment)
    /// with the first key pair.
    public func sign(_ path: String) -> String {
        Base64URL.encode(digest(path, with: keyPairs[0]))
    }

    /// Whether `signature` is valid for `path` under any configured pair. Every pair is
    /// compared in constant time and all pairs are always tried, so timing does not reveal
    /// which one matched or how many bytes did.
    public func verify(signature: String, path: String) -> Bool {
        guard let given = Base64URL.decode(signature) else { return false }
        var matched = false
        for pair in keyPairs {
            let expected = digest(path, with: pair)
            if Self.constantTimeEqual(given, expected) { matched = true }
        }
        return matched
    }

    private func digest(_ path: String, with pair: KeyPair) -> [UInt8] {
        var hmac = HMAC<SHA256>(key: SymmetricKey(data: pair.key))
        hmac.update(data: pair.salt)
        hmac.update(data: Array(path.utf8))
        return Array(Array(hmac.finalize()).prefix(signatureSize))
    }

    /// Compares two byte strings in time that depends only on their lengths.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
