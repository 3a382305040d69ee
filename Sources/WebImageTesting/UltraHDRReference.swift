import Foundation

/// libultrahdr through `scripts/gainmap-fixtures.py` in the `.build-hdr-venv` venv
/// (`scripts/hdr-venv.sh`, made on first use): Ultra HDR inputs made at test time, and the
/// reference decoder's reading of our output.
public enum UltraHDRReference {
    /// The project root (…/Sources/WebImageTesting/ is two folders below it).
    static let projectRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The venv's python, or why there is none.
    public static let python: Result<String, ReferenceUnavailable> = {
        let output = run("/usr/bin/env", ["bash", projectRoot.appendingPathComponent("scripts/hdr-venv.sh").path])
        guard output.status == 0, let path = output.stdout.split(separator: "\n").last.map(String.init), !path.isEmpty else {
            let reason = "libultrahdr is unavailable (scripts/hdr-venv.sh failed): \(output.stderr.suffix(300))"
            print("UltraHDRReference: \(reason)")
            return .failure(ReferenceUnavailable(reason: reason))
        }
        return .success(path)
    }()

    /// Why libultrahdr cannot be used, or what it refused.
    public struct ReferenceUnavailable: Error { public let reason: String }

    /// Whether the venv with libultrahdr is ready.
    public static var isAvailable: Bool { (try? python.get()) != nil }

    /// The fixtures, made once per test process into a temporary folder: name → bytes.
    public static let fixtures: [String: Data] = {
        guard let python = try? python.get() else { return [:] }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gainmap-fixtures-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = run(python, [script, "make", folder.path])
        var files: [String: Data] = [:]
        for name in output.stdout.split(separator: "\n") {
            files[String(name)] = try? Data(contentsOf: folder.appendingPathComponent(String(name)))
        }
        return files
    }()

    static var script: String { projectRoot.appendingPathComponent("scripts/gainmap-fixtures.py").path }

    /// What libultrahdr reads in `data` (`check`'s JSON), or `nil` with its error when it refuses the file.
    public static func check(_ data: Data) throws -> [String: Any] {
        let python = try python.get()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gainmap-check-\(UUID().uuidString).jpg")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let output = run(python, [script, "check", file.path])
        guard output.status == 0, let json = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any] else {
            throw ReferenceUnavailable(reason: "libultrahdr refused the file: \(output.stderr.suffix(400))")
        }
        return json
    }

    /// libultrahdr's HDR rendition of `data` at full boost: linear RGB (1.0 = SDR white), with its size.
    public static func rendition(_ data: Data) throws -> (width: Int, height: Int, values: [Float]) {
        let python = try python.get()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gainmap-render-\(UUID().uuidString).jpg")
        try data.write(to: file)
        let raw = URL(fileURLWithPath: file.path + ".rgbf")
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: raw)
        }
        let output = run(python, [script, "render", file.path])
        guard output.status == 0, let json = try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Int],
            let width = json["width"], let height = json["height"]
        else { throw ReferenceUnavailable(reason: "libultrahdr could not render the file: \(output.stderr.suffix(400))") }
        let bytes = try Data(contentsOf: raw)
        let values = bytes.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        guard values.count == width * height * 3 else { throw ReferenceUnavailable(reason: "short rendition") }
        return (width, height, values)
    }

    /// libultrahdr's own Ultra HDR JPEG of an HDR picture (its encoder from an HDR-only input,
    /// default settings, map at 1/`scale`): `linear` is RGB, BT.709, 1.0 = SDR white.
    public static func encode(linear: [Float], width: Int, height: Int, scale: Int) throws -> Data {
        let python = try python.get()
        precondition(linear.count == width * height * 3, "linear RGB of width × height pixels")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("gainmap-encode-\(UUID().uuidString).rgbf")
        let jpeg = URL(fileURLWithPath: file.path + ".jpg")
        defer {
            try? FileManager.default.removeItem(at: file)
            try? FileManager.default.removeItem(at: jpeg)
        }
        try linear.withUnsafeBytes { try Data($0).write(to: file) }
        let output = run(python, [script, "encode", file.path, String(width), String(height), String(scale)])
        guard output.status == 0 else { throw ReferenceUnavailable(reason: "libultrahdr could not encode: \(output.stderr.suffix(400))") }
        return try Data(contentsOf: jpeg)
    }

    public static func run(_ executable: String, _ arguments: [String]) -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch { return (-1, "", "\(error)") }
        // Read both pipes to the end before waiting, so a full pipe never blocks the child.
        let errData = LockedData()
        let reader = Thread { errData.set(err.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while !errData.isSet { usleep(1000) }
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: errData.value, as: UTF8.self))
    }

    /// Data one thread sets and another reads, under `lock`.
    final class LockedData: @unchecked Sendable {  // @unchecked: every access holds `lock`.
        private let lock = NSLock()
        private var data: Data?
        func set(_ value: Data) { lock.withLock { data = value } }
        var isSet: Bool { lock.withLock { data != nil } }
        var value: Data { lock.withLock { data ?? Data() } }
    }
}
