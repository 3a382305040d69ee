/// Where rendered results are kept beyond one instance's memory (SPEC V-12): several instances
/// sharing one store answer a result any of them rendered without fetching or rendering again,
/// and a restarted instance starts warm.
///
/// A store is a cache: ``entry(for:)`` may answer `nil` for anything, and an error from either
/// method costs the request nothing but the store's help (the service logs a warning, counts it
/// in `webimage_result_store_errors_total` and goes on as without a store). Keys are derived
/// from the canonical request, never from its signature (``ResultStoreKey``). The service calls
/// ``entry(for:)`` under `result-store-timeout` and ``store(_:for:)`` from a background queue,
/// one write at a time, so a slow store never holds an answer.
///
/// ``DirectoryResultStore`` keeps entries as files; ``S3ResultStore`` implements the same two
/// methods over `GET`/`PUT` of `prefix/` + ``ResultStoreKey/name`` in object storage, with the
/// bytes of ``StoredResult`` as its body and the same checks on reading.
public protocol ResultStore: Sendable {
    /// The entry stored under `key`, or `nil` when there is none (or it cannot be read whole:
    /// truncated, corrupt or over the store's size bound). Expired entries may be returned;
    /// the service checks ``StoredResult/expiresAt``.
    func entry(for key: ResultStoreKey) async throws -> StoredResult?

    /// Stores `result` under `key`, replacing any entry there. A reader sees the old entry or
    /// the new one, never a part of either.
    func store(_ result: StoredResult, for key: ResultStoreKey) async throws
}
