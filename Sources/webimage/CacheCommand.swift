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

    /// The disk cache these options name, without automatic cleaning.
    func diskCache(_ configuration: DiskCacheConfiguration = DiskCacheConfiguration()) -> DiskCache {
        var configuration = configuration
        configuration.automaticCleaningInterval = nil
        if let cacheDirectory {
            return DiskCache(directory: URL(fileURLWithPath: cacheDirectory, isDirectory: true), configuration: configuration)
        }
        return DiskCache(namespace: "default", configuration: configuration)
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
        let cache = location.diskCache()
        CacheReport.print(try cache.statistics(), directory: cache.directory, json: location.json)
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

    func run() throws {
        let cache = location.diskCache()
        let removed = ActivityIndicator.run("cleaning") { cache.removeExpiredData(maxAge: maxAge, maxSize: maxSize) }
        CacheReport.print(try cache.statistics(), directory: cache.directory, json: location.json, removed: removed)
    }
}

struct CacheClearCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "clear", abstract: "Remove every entry.")

    @OptionGroup var location: CacheLocationOptions

    func run() throws {
        let cache = location.diskCache()
        ActivityIndicator.run("clearing") { cache.removeAll() }
        CacheReport.print(try cache.statistics(), directory: cache.directory, json: location.json)
    }
}
