import Foundation

/// What the AWS environment variables and shared files say about S3 access: credentials,
/// region, endpoint, addressing style — as ``AWSSettings/resolve(environment:homeDirectory:)``
/// finds them, in the order the AWS SDKs look.
public struct AWSSettings: Sendable {
    /// The credentials found, or `nil` when none were (requests then go unsigned, which only
    /// public objects answer).
    public var credentials: AWSCredentials?
    /// Where the credentials came from, in words (`environment variables`, `shared
    /// credentials file /root/.aws/credentials [default]`, …), or why there are none.
    public var credentialsSource: String
    /// The region (`AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's `region`), or `nil`.
    public var region: String?
    /// The S3 endpoint (`AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`, the profile's `s3 =
    /// endpoint_url` or `endpoint_url`), or `nil` for AWS's own.
    public var endpointURL: URL?
    /// Whether the profile asks for path-style addressing (`s3 = addressing_style = path`):
    /// `true` for `path`, `false` for `virtual`, `nil` when unset.
    public var pathStyle: Bool?
    /// The profile the shared files were read for (`AWS_PROFILE`, else `default`).
    public var profile: String

    /// Settings from their parts.
    public init(
        credentials: AWSCredentials?, credentialsSource: String, region: String? = nil, endpointURL: URL? = nil,
        pathStyle: Bool? = nil, profile: String = "default"
    ) {
        self.credentials = credentials
        self.credentialsSource = credentialsSource
        self.region = region
        self.endpointURL = endpointURL
        self.pathStyle = pathStyle
        self.profile = profile
    }
}
