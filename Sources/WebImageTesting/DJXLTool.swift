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
