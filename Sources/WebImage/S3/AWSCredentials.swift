import Foundation

/// An AWS access key: what ``AWSSignatureV4`` signs with.
///
/// Its `description` names the access key id and never the secret or the session token, so a
/// value that reaches a log does not leak them.
public struct AWSCredentials: Sendable, Hashable, CustomStringConvertible {
    /// The access key id (`AKIA…`, or `ASIA…` for temporary keys).
    public var accessKeyID: String
    /// The secret access key.
    public var secretAccessKey: String
    /// The session token of temporary credentials, sent as `X-Amz-Security-Token`; `nil` for a
    /// long-term key.
    public var sessionToken: String?

    /// Credentials from their parts.
    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    /// The access key id and whether a session token is present; the secrets are left out.
    public var description: String {
        "AWSCredentials(accessKeyID: \(accessKeyID), secretAccessKey: <redacted>\(sessionToken == nil ? "" : ", sessionToken: <redacted>"))"
    }
}
