import ArgumentParser
import Foundation
import WebImage

/// `webimage cache stats|clean|clear`: inspect and clean a disk cache (SPEC X-5, S-5).
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Show and clean disk-cache statistics.",
        subcommands: [CacheStatsCommand.self, CacheCleanCommand.self, CacheClearCommand.self, CacheStressCommand.self]
    )
}

/// Options shared by the `cache` subcommands.
struct CacheLocationOptions: ParsableArguments {
    @Option(name: .customLong("cache-dir"), help: ArgumentHelp("The cache directory (default: the default namespace).", valueName: "dir"))
    var cacheDirectory: String?

    @Flag(help: "Print JSON.")
    var json = false

    /// The directory these options name: `--cache-dir`, else the default namespace's.
    var directory: URL {
        cacheDirectory.map { URL(fileURLWithPath: $0, isDirectory: true).standardizedFileURL }
            ?? DiskCache.directory(forNamespace: "default")
    }

    /// The disk cache these options name, without automatic cleaning; `nil` when there is no
    /// cache there yet (nothing is created). Fails with one clear error for a directory that
    /// is not a cache (see ``CacheDirectoryCheck``).
    func existingDiskCache(_ configuration: DiskCacheConfiguration = DiskCacheConfiguration()) throws -> DiskCache? {
        var configuration = configuration
        configuration.automaticCleaningInterval = nil
        do {
            return try CacheDirectoryCheck.openExisting(directory, configuration: configuration)
        } catch {
            Console.error(error.description)
            throw ExitCode.failure
        }
    }

    /// Prints `cache`'s statistics, or those of an empty cache when there is none.
    func report(_ cache: DiskCache?, removed: Int? = nil) throws {
        let statistics = try cache?.statistics() ?? .empty
        CacheReport.print(statistics, directory: directory, json: json, removed: removed)
    }
}

/// Prints statistics as text or JSON.
enum CacheReport {
    static func print(_ statistics: DiskCacheStatistics, directory: URL, json: Bool, removed: Int? = nil) {
        let formatter = ISO8601DateFormatter()
        if json {
            var fields = [
                "\"count\":\(statistics.count)",
                "\"bytes\":\(statistics.bytes)",
                "\"oldest\":" + (statistics.oldest.map { "\"\(formatter.string(from: $0))\"" } ?? "null"),
                "\"newest\":" + (statistics.newest.map { "\"\(formatter.string(from: $0))\"" } ?? "null"),
            ]
            if let removed { fields.append("\"removed\":\(removed)") }
            Swift.print("{" + fields.joined(separator: ",") + "}")
        } else {
            Swift.print("directory: \(directory.path)")
            if let removed { Swift.print("removed:   \(removed)") }
            Swift.print("count:     \(statistics.count)")
            Swift.print("bytes:     \(statistics.bytes)")
            Swift.print("oldest:    \(statistics.oldest.map { formatter.string(from: $0) } ?? "-")")
            Swift.print("newest:    \(statistics.newest.map { formatter.string(from: $0) } ?? "-")")
        }
    }
}

struct CacheStatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Print entry count, total bytes, oldest and newest entry.")

    @OptionGroup var location: CacheLocationOptions

    func run() throws {
        try location.report(location.existingDiskCache())
    }
}

struct CacheCleanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clean", abstract: "Remove expired entries and trim to the size limit.")

    @OptionGroup var location: CacheLocationOptions

    @Option(name: .customLong("max-age"), help: ArgumentHelp("Maximum age in seconds (default one week; negative: never).", valueName: "seconds"))
    var maxAge: Double?

    @Option(name: .customLong("max-size"), help: ArgumentHelp("Maximum total bytes; trims to half when over (0: unlimited).", valueName: "bytes"))
    var maxSize: Int?

    func validate() throws {
        try OptionLimits.checkMaxAge(maxAge)
        try OptionLimits.checkMaxSize(maxSize)
    }

    func run() throws {
        let cache = try location.existingDiskCache()
        let removed = cache.map { cache in
            ActivityIndicator.run("cleaning") { cache.removeExpiredData(maxAge: maxAge, maxSize: maxSize) }
        }
        try location.report(cache, removed: removed ?? 0)
    }
}

struct CacheClearCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear", abstract: "Remove every entry.",
        discussion: """
            Deletes only the entries the cache's index lists. A directory that is not a cache \
            (no .webimage-cache marker and no valid .index) is refused; a missing directory is \
            left missing.
            """)

    @OptionGroup var location: CacheLocationOptions

    func run() throws {
        let cache = try location.existingDiskCache()
        if let cache { ActivityIndicator.run("clearing") { cache.removeAll() } }
        try location.report(cache)
    }
}
