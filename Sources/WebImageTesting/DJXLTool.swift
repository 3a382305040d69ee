import Foundation

/// `djxl` (Debian libjxl-tools, installed by scripts/setup.sh): libjxl's own reconstruction of
/// the JPEG inside a JPEG XL file, for tests that check lossless recompression byte for byte.
public enum DJXLTool {
    /// `djxl` failed.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The JPEG that `djxl` reconstructs from `jxl`.
    /// - Throws: ``Failure`` when `djxl` exits with an error; file errors as they come.
    public static func reconstruct(_ jxl: Data) throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("djxl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.jxl"), output = directory.appendingPathComponent("out.jpg")
        try jxl.write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/djxl")
        process.arguments = [input.path, output.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "djxl exited \(process.terminationStatus)") }
        return try Data(contentsOf: output)
    }
}

extension DJXLTool {
    /// The PNG `djxl` decodes `jxl` to (libjxl's own decoder: 16-bit samples for a file of more
    /// than 8 bits a sample).
    /// - Throws: ``Failure`` when `djxl` exits with an error; file errors as they come.
    public static func decodePNG(_ jxl: Data) throws -> Data {
        try run("/usr/bin/djxl", jxl, outputName: "out.png")
    }

    /// `jxlinfo`'s description of `jxl`: its bits a sample and colour encoding in words (for
    /// example "Rec.2100 primaries, PQ transfer function").
    /// - Throws: ``Failure`` when `jxlinfo` exits with an error.
    public static func info(_ jxl: Data) throws -> String {
        String(decoding: try run("/usr/bin/jxlinfo", jxl, outputName: nil), as: UTF8.self)
    }

    /// Runs `tool` on `jxl` written to a temporary file: the file `outputName` it writes, or its
    /// standard output when `outputName` is `nil`.
    private static func run(_ tool: String, _ jxl: Data, outputName: String?) throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("djxl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.jxl")
        try jxl.write(to: input)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        let pipe = Pipe()
        if let outputName {
            process.arguments = [input.path, directory.appendingPathComponent(outputName).path]
            process.standardOutput = FileHandle.nullDevice
        } else {
            process.arguments = [input.path]
            process.standardOutput = pipe
        }
        process.standardError = FileHandle.nullDevice
        try process.run()
        // jxlinfo's report is short; read it to the end before waiting.
        let stdout = outputName == nil ? pipe.fileHandleForReading.readDataToEndOfFile() : Data()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw Failure(description: "\(tool) exited \(process.terminationStatus)") }
        guard let outputName else { return stdout }
        return try Data(contentsOf: directory.appendingPathComponent(outputName))
    }
}
