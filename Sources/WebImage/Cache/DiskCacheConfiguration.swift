import Foundation

/// Which file date decides an entry's age for expiry and size trimming (SPEC S-4).
public enum DiskCacheExpireDate: String, Sendable, Hashable, CaseIterable {
    /// Last read through the cache (the cache updates it on every read).
    case accessDate
    /// Last written (the default).
    case modificationDate
    /// First created (the file's birth time where the file system records it).
    case creationDate
    /// Last status change of the file (`ctime`).
    case changeDate
}

/// Limits and layout of a ``DiskCache`` (SPEC S-1…S-7).
public struct DiskCacheConfiguration: Sendable {
    /// Entries older than this many seconds are removed by ``DiskCache/removeExpiredData()``.
    /// Default one week; a negative value means entries never expire by age.
    public var maxDiskAge: TimeInterval = 7 * 24 * 60 * 60
    /// When the entries total more than this many bytes, the oldest are removed until the
    /// total is at most half of it. `0` (default) means unlimited.
    public var maxDiskSize: Int = 0
    /// The date ``maxDiskAge`` and size trimming look at (default ``DiskCacheExpireDate/modificationDate``).
    public var expireDate: DiskCacheExpireDate = .modificationDate
    /// Directories searched (read-only) after the cache's own directory, e.g. images shipped
    /// with a service. Their files use the same names as the cache's.
    public var additionalLookupDirectories: [URL] = []
    /// Run ``DiskCache/removeExpiredData()`` when the cache opens and then every this many
    /// seconds; `nil` disables automatic cleaning. Default one hour.
    public var automaticCleaningInterval: TimeInterval? = 60 * 60
    /// Store extended data in side records instead of extended attributes even when the file
    /// system supports them (mainly for tests).
    public var forceSideRecords: Bool = false

    /// A configuration; each parameter defaults to the value documented on its property.
    public init(
        maxDiskAge: TimeInterval = 7 * 24 * 60 * 60,
        maxDiskSize: Int = 0,
        expireDate: DiskCacheExpireDate = .modificationDate,
        additionalLookupDirectories: [URL] = [],
        automaticCleaningInterval: TimeInterval? = 60 * 60,
        forceSideRecords: Bool = false
    ) {
        self.maxDiskAge = maxDiskAge
        self.maxDiskSize = maxDiskSize
        self.expireDate = expireDate
        self.additionalLookupDirectories = additionalLookupDirectories
        self.automaticCleaningInterval = automaticCleaningInterval
        self.forceSideRecords = forceSideRecords
    }
}

/// Extra facts kept with a disk-cache entry (SPEC S-6): where it came from and the HTTP
/// validators used to revalidate it, plus free-form user bytes.
public struct DiskCacheExtendedData: Sendable, Hashable, Codable {
    /// The URL the bytes were downloaded from.
    public var originalURL: String?
    /// The response's `Content-Type`.
    public var contentType: String?
    /// The response's `ETag`.
    public var eTag: String?
    /// The response's `Last-Modified`.
    public var lastModified: String?
    /// Anything else the application wants to keep with the entry.
    public var userData: Data?

    /// Extended data with the given fields (all optional).
    public init(
        originalURL: String? = nil,
        contentType: String? = nil,
        eTag: String? = nil,
        lastModified: String? = nil,
        userData: Data? = nil
    ) {
        self.originalURL = originalURL
        self.contentType = contentType
        self.eTag = eTag
        self.lastModified = lastModified
        self.userData = userData
    }
}

/// What ``DiskCache/statistics()`` reports.
public struct DiskCacheStatistics: Sendable, Hashable {
    /// Number of entries.
    public var count: Int
    /// Total bytes of the entries.
    public var bytes: Int
    /// The oldest entry's date (of the configured ``DiskCacheExpireDate``), if any.
    public var oldest: Date?
    /// The newest entry's date, if any.
    public var newest: Date?

    /// Statistics with these values (``empty`` for a cache without entries).
    public init(count: Int, bytes: Int, oldest: Date?, newest: Date?) {
        self.count = count
        self.bytes = bytes
        self.oldest = oldest
        self.newest = newest
    }

    /// No entries.
    public static let empty = DiskCacheStatistics(count: 0, bytes: 0, oldest: nil, newest: nil)
}
