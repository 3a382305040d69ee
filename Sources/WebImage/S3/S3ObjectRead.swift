import Foundation

/// What ``S3ObjectClient/read(_:maxBytes:)`` found at an object's key.
public enum S3ObjectRead: Sendable, Equatable {
    /// The object's whole body.
    case object(Data)
    /// No object under the key (S3 answered 404 `NoSuchKey`, or 410).
    case missing
    /// The object is larger than the bytes the caller allowed; nothing past the limit was read
    /// (an announced `Content-Length` over the limit is refused before any of the body).
    case tooLarge
}
