import Foundation

/// Why a text is not an `s3://bucket[/prefix]` result store location.
public struct S3ResultStoreLocationError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, in words.
    public let reason: String

    public var description: String { reason }
}
