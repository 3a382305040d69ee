import Foundation
import Testing
import WebImageCodecs
import WebImageCore
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The tool never surprises: it does not replace its input, writes through links, fails at once
/// on an unusable cache directory, creates nothing when reading, deletes only a cache's own
/// entries, and checks numbers the same way in every command.
@Suite("webimage: no surprises")
struct CLISafetyTests {
    /// A 12×8 opaque PNG.
    static func png(seed: UInt8 = 0) throws -> Data {
        let pixels = PixelBuffer.make(width: 12, height: 8) { out in
            for i in stride(from: 0, to: out.count, by: 4) {
                out[i] = 200 &+ seed
                out[i + 1] = 100
                out[i + 2] = 50
                out[i + 3] = 255
            }
        }
        return try CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: false), format: .png, options: .default)
    }

    static func dataURL(seed: UInt8 = 0) throws -> String {
        "data:image/png;base64," + (try png(seed: seed)).base64EncodedString()
    }

    func isSymbolicLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    func size(of url: URL) throws -> PixelSize {
        try CodersManager.shared.decode(Data(contentsOf: url), options: .default).pixelSize
    }

    // MARK: convert

    @Test("Given convert IN IN, then it refuses and the input is unchanged; with --overwrite it replaces it")
    func convertIntoItself() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.png")
        let original = try Self.png()
        try original.write(to: input)

        let refused = try await CLIRunner.run(["convert", input.path, input.path, "--resize", "6x4"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--overwrite"), "\(refused.stderr)")
        #expect(try Data(contentsOf: input) == original)

        // The same file under another name: a hard link, and a path spelled differently.
        let hard = directory.appendingPathComponent("hard.png")
        #expect(link(input.path, hard.path) == 0)
        let viaLink = try await CLIRunner.run(["convert", input.path, hard.path, "--resize", "6x4"])
        #expect(viaLink.status != 0)
        let spelled = try await CLIRunner.run(["convert", input.path, directory.path + "/./in.png", "--resize", "6x4"])
        #expect(spelled.status != 0)
        #expect(try Data(contentsOf: input) == original)

        let allowed = try await CLIRunner.run(["convert", input.path, input.path, "--resize", "6x4", "--overwrite"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(try size(of: input) == PixelSize(width: 6, height: 4))
    }

    @Test("Given an output that is a symbolic link, then the file it points to is written and the link stays")
    func convertThroughSymlink() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.png")
        try Self.png().write(to: input)
        let target = directory.appendingPathComponent("target.png")
        try Self.png(seed: 9).write(to: target)
        let link = directory.appendingPathComponent("link.png")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "target.png")

        let result = try await CLIRunner.run(["convert", input.path, link.path, "--resize", "6x4"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(isSymbolicLink(link.path), "the link was replaced by a regular file")
        #expect(try size(of: target) == PixelSize(width: 6, height: 4))

        // A dangling link: the file it names is created.
        let dangling = directory.appendingPathComponent("dangling.png")
        try FileManager.default.createSymbolicLink(atPath: dangling.path, withDestinationPath: directory.appendingPathComponent("new.png").path)
        let created = try await CLIRunner.run(["convert", input.path, dangling.path])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(isSymbolicLink(dangling.path))
        #expect(try size(of: directory.appendingPathComponent("new.png")) == PixelSize(width: 12, height: 8))

        // A link to the input is the input.
        let toInput = directory.appendingPathComponent("to-input.png")
        try FileManager.default.createSymbolicLink(atPath: toInput.path, withDestinationPath: "in.png")
        let refused = try await CLIRunner.run(["convert", input.path, toInput.path, "--resize", "6x4"])
        #expect(refused.status != 0)
        #expect(try size(of: input) == PixelSize(width: 12, height: 8))
    }

    // MARK: fetch --cache-dir

    @Test("Given fetch --cache-dir naming a file, a path that cannot be created, or a directory of other files, then it fails at once with one error")
    func fetchUnusableCacheDirectory() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("plain-file")
        try Data("x".utf8).write(to: file)
        let other = directory.appendingPathComponent("photos", isDirectory: true)
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: other.appendingPathComponent("holiday.txt"))
        let urls = [try Self.dataURL(), try Self.dataURL(seed: 1)]

        for (cacheDirectory, expected) in [
            (file.path, "not a directory"), (file.path + "/sub", "cannot create"), (other.path, "not a swift-web-image cache"),
        ] {
            let result = try await CLIRunner.run(["fetch", "--cache-dir", cacheDirectory] + urls)
            #expect(result.status != 0, "\(cacheDirectory)")
            let errors = result.stderr.split(separator: "\n").filter { $0.contains("error") }
            #expect(errors.count == 1, "one error for \(cacheDirectory), got: \(result.stderr)")
            #expect(result.stderr.contains(expected), "\(result.stderr)")
            #expect(!result.stdout.contains("fetched") && !result.stderr.contains("fetched"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: other.path) == ["holiday.txt"], "nothing written in the user's directory")
    }

    @Test("Given fetch --cache-dir naming a new directory, then it becomes a marked cache")
    func fetchCreatesMarkedCache() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = directory.appendingPathComponent("new/cache", isDirectory: true)
        let result = try await CLIRunner.run(["fetch", "--json", "--cache-dir", cache.path, try Self.dataURL()])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent(".webimage-cache").path))
    }

    // MARK: cache stats / clear / clean

    @Test("Given cache stats on a missing directory, then it reports an empty cache and creates nothing")
    func statsCreatesNothing() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let missing = directory.appendingPathComponent("absent", isDirectory: true)
        let result = try await CLIRunner.run(["cache", "stats", "--json", "--cache-dir", missing.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("\"count\":0"))
        #expect(!FileManager.default.fileExists(atPath: missing.path))
        for command in ["clear", "clean"] {
            let other = try await CLIRunner.run(["cache", command, "--cache-dir", missing.path])
            #expect(other.status == 0, "\(command): \(other.stderr)")
            #expect(!FileManager.default.fileExists(atPath: missing.path), "\(command) created the directory")
        }
    }

    @Test("Given a directory that is not a cache, then cache clear, clean and stats refuse and delete nothing")
    func clearRefusesNonCache() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let user = directory.appendingPathComponent(String(repeating: "ab", count: 32) + ".txt")
        try Data("keep me".utf8).write(to: user)
        for command in ["clear", "clean", "stats"] {
            let result = try await CLIRunner.run(["cache", command, "--cache-dir", directory.path])
            #expect(result.status != 0, "\(command)")
            #expect(result.stderr.contains("not a swift-web-image cache"), "\(command): \(result.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [user.lastPathComponent])
    }

    @Test("Given a cache holding a file its index does not list, then cache clear removes the entries and keeps that file")
    func clearDeletesOnlyIndexedEntries() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = directory.appendingPathComponent("cache", isDirectory: true)
        let fetched = try await CLIRunner.run(["fetch", "--json", "--cache-dir", cache.path, try Self.dataURL(), try Self.dataURL(seed: 1)])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        let entryNames = { try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { !$0.hasPrefix(".") } }
        let entries = try entryNames()
        #expect(entries.count == 2)
        let user = String(repeating: "cd", count: 32) + ".txt"
        try Data("keep me".utf8).write(to: cache.appendingPathComponent(user))

        let cleared = try await CLIRunner.run(["cache", "clear", "--json", "--cache-dir", cache.path])
        #expect(cleared.status == 0, "\(cleared.stderr)")
        #expect(try entryNames() == [user])
    }

    @Test("Given a cache made before the marker (a valid index, no marker), then the cache commands accept it")
    func unmarkedCacheAccepted() async throws {
        let directory = try CLIRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = directory.appendingPathComponent("cache", isDirectory: true)
        let fetched = try await CLIRunner.run(["fetch", "--json", "--cache-dir", cache.path, try Self.dataURL()])
        #expect(fetched.status == 0, "\(fetched.stderr)")
        try FileManager.default.removeItem(at: cache.appendingPathComponent(".webimage-cache"))
        let stats = try await CLIRunner.run(["cache", "stats", "--json", "--cache-dir", cache.path])
        #expect(stats.status == 0, "\(stats.stderr)")
        #expect(stats.stdout.contains("\"count\":1"))
        #expect(FileManager.default.fileExists(atPath: cache.appendingPathComponent(".webimage-cache").path), "opening it marks it")
    }

    // MARK: numbers

    @Test("Given out-of-range or non-finite numbers, then every command refuses them with the same message", arguments: [
        (["cache", "clean", "--cache-dir", "/nonexistent-webimage", "--max-size=-1"], "--max-size must be"),
        (["cache", "clean", "--cache-dir", "/nonexistent-webimage", "--max-age", "nan"], "--max-age must be"),
        (["cache", "clean", "--cache-dir", "/nonexistent-webimage", "--max-age", "inf"], "--max-age must be"),
        (["convert", "in.png", "out.png", "--thumbnail", "1000000000"], "--thumbnail must be between 1 and 65535 pixels"),
        (["fetch", "--thumbnail", "1000000000", "data:,x"], "--thumbnail must be between 1 and 65535 pixels"),
        (["convert", "in.png", "out.png", "--resize", "100000x10"], "--resize width must be between 1 and 65535 pixels"),
        (["convert", "in.png", "out.png", "--blur", "nan"], "--blur must be a radius"),
        (["convert", "in.png", "out.png", "--timeout", "nan"], "--timeout must be more than 0"),
        (["fetch", "--timeout", "inf", "data:,x"], "--timeout must be more than 0"),
    ])
    func numbersChecked(arguments: [String], message: String) async throws {
        let result = try await CLIRunner.run(arguments)
        #expect(result.status != 0)
        #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
    }
}
