import Foundation
import WebImage

/// A ``ResultStore`` in object storage (`--result-store s3://bucket/prefix`): one object per
/// entry, `prefix/` + ``ResultStoreKey/name``, its body the bytes of a ``StoredResult`` (the
/// same encoding as ``DirectoryResultStore``'s files, so metadata — content type, `ETag`,
/// `Last-Modified`, expiry — travels with the image and is checked whole on reading).
///
/// Requests go to the S3 endpoint of its `S3Configuration` (the same `--s3-endpoint`,
/// `--s3-region`, `--s3-endpoint-use-path-style` and AWS credentials as `s3://` sources),
/// signed with AWS Signature Version 4 through `S3ObjectClient`. The bucket is the operator's
/// setting: the `--s3-allowed-bucket`/`--s3-denied-bucket` rules for sources do not apply to it.
///
/// A missing object (404) is a miss; any other refusal, a missing bucket or an unreachable
/// endpoint is an error, which the service turns into a warning and a metric. An object larger
/// than the store's bound (announced by its `Content-Length` or found while reading) is read as
/// none without reading past the bound. S3 makes a `PUT` visible whole or not at all, so readers
/// see the old entry or the new one.
public final class S3ResultStore: ResultStore {
    /// The bucket.
    public let bucket: String
    /// The key prefix without leading or trailing `/`; empty for the bucket's top level.
    public let prefix: String
    /// The largest body read or written; bigger entries are skipped (read as none).
    public let maxEntryBytes: Int
    /// The client that reads and writes the objects.
    public let client: S3ObjectClient

    /// A store in `bucket` under `prefix` at the endpoint of `configuration`, holding results
    /// of up to `maxEntryBytes` bytes; a request taking more than `timeout` seconds fails.
    public init(bucket: String, prefix: String, configuration: S3Configuration, maxEntryBytes: Int = 64 * 1024 * 1024, timeout: Double = 30) {
        self.bucket = bucket
        self.prefix = prefix.trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        self.maxEntryBytes = max(0, maxEntryBytes)
        client = S3ObjectClient(configuration: configuration, timeout: timeout)
    }

    /// The store an `s3://bucket[/prefix]` URL names.
    /// - Throws: ``S3ResultStoreLocationError`` when `url` is not one.
    public convenience init(
        url: String, configuration: S3Configuration, maxEntryBytes: Int = 64 * 1024 * 1024, timeout: Double = 30
    ) throws(S3ResultStoreLocationError) {
        let (bucket, prefix) = try Self.parseLocation(url)
        self.init(bucket: bucket, prefix: prefix, configuration: configuration, maxEntryBytes: maxEntryBytes, timeout: timeout)
    }

    /// `s3://bucket/prefix`.
    public var url: String { prefix.isEmpty ? "s3://\(bucket)" : "s3://\(bucket)/\(prefix)" }

    /// Where `key`'s entry lives.
    public func location(for key: ResultStoreKey) -> S3ObjectLocation {
        S3ObjectLocation(bucket: bucket, key: prefix.isEmpty ? key.name : "\(prefix)/\(key.name)")
    }

    /// - Throws: ``S3ResultStoreError`` when S3 refuses the read, the bucket does not exist or
    ///   the endpoint cannot be reached.
    public func entry(for key: ResultStoreKey) async throws -> StoredResult? {
        let limit = maxEntryBytes + StoredResult.magic.count + 4 + StoredResult.maxHeaderBytes
        let read: S3ObjectRead
        do {
            read = try await client.read(location(for: key), maxBytes: limit)
        } catch {
            throw failure(error)
        }
        switch read {
        case let .object(data):
            guard let result = StoredResult(encoded: data), result.body.count <= maxEntryBytes else { return nil }
            return result
        case .missing, .tooLarge:
            return nil
        }
    }

    /// - Throws: ``S3ResultStoreError`` when S3 refuses the write, the bucket does not exist or
    ///   the endpoint cannot be reached.
    public func store(_ result: StoredResult, for key: ResultStoreKey) async throws {
        guard result.body.count <= maxEntryBytes else { return }
        let data = try result.encoded()
        do {
            try await client.write(data, to: location(for: key))
        } catch {
            throw failure(error)
        }
    }

    /// `error` with the store and its endpoint named; a cancellation stays one.
    private func failure(_ error: any Error) -> any Error {
        if error is CancellationError { return error }
        if case .cancelled? = error as? WebImageError { return CancellationError() }
        return S3ResultStoreError(store: url, endpoint: client.configuration.effectiveEndpoint.absoluteString, underlying: error)
    }
}
