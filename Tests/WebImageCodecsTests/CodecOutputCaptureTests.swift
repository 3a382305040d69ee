import Foundation
import Synchronization
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// SPEC R-4 through the library API: codec libraries print nothing of their own. Each check runs
/// in a child process (this test bundle again, filtered to ``childProcess()``), because what is
/// asserted is the process's standard error, which the parallel tests of this process share.
@Suite("Codec libraries' own output through the library API (R-4)")
struct CodecOutputCaptureTests {
    static let modeVariable = "WEBIMAGE_CODEC_OUTPUT_CHILD"
    static var childMode: String? { ProcessInfo.processInfo.environment[modeVariable] }

    /// A JPEG XL container header from the corpus followed by garbage (libjxl prints
    /// `./lib/jxl/…` lines for it), and a TIFF whose first directory is garbage (libtiff's
    /// handler would print "TIFFFetchDirectory: Sanity check on directory count failed").
    static func damagedFiles() throws -> [Data] {
        let jxl = try Corpus.data("sdwebimage/TestHDR.jxl").prefix(40) + Data((0..<400).map { UInt8(($0 * 37 + 11) & 0xFF) })
        let tiff = Data(Array("II*".utf8) + [0, 8, 0, 0, 0] + (0..<300).map { UInt8(($0 * 53 + 7) & 0xFF) })
        return [jxl, tiff]
    }

    /// Runs in the child only: decodes the damaged files through the library, with the capture
    /// installed when the mode says so; the lines it received go to standard output.
    @Test("Child process: decode damaged files", .enabled(if: childMode != nil && Corpus.isAvailable))
    func childProcess() throws {
        let received = Mutex<[String]>([])
        if Self.childMode == "capture" {
            #expect(CodecOutputCapture.install { line in received.withLock { $0.append(line) } })
        }
        for data in try Self.damagedFiles() {
            #expect(throws: WebImageError.self) { try CodersManager.shared.decode(data, options: .default) }
        }
        fflush(nil)
        // Let the filter thread pass the pipe on before the lines are counted.
        for _ in 0..<500 where Self.childMode == "capture" && received.withLock({ $0.isEmpty }) { usleep(10_000) }
        print("captured lines: \(received.withLock { $0.count })")
    }

    /// This test bundle's executable, re-run filtered to ``childProcess()`` in `mode`.
    static func runChild(mode: String) throws -> (stdout: String, stderr: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("codec-output-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("out"), err = directory.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = ["--testing-library", "swift-testing", "--filter", "CodecOutputCaptureTests/childProcess"]
        process.environment = ProcessInfo.processInfo.environment.merging([modeVariable: mode, "NO_COLOR": "1"]) { $1 }
        process.currentDirectoryURL = directory
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        // A hang guard, not a timing assertion.
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return (
            String(decoding: try Data(contentsOf: out), as: UTF8.self),
            String(decoding: try Data(contentsOf: err), as: UTF8.self)
        )
    }

    @Test(
        "Given a damaged JPEG XL and TIFF decoded through the library, then libjxl's lines reach standard error without the capture and the capture's handler with it; libtiff's never reach standard error",
        .enabled(if: childMode == nil && Corpus.isAvailable))
    func damagedFilesPrintNothing() async throws {
        let control = try await onOwnThread { try Self.runChild(mode: "none") }
        #expect(control.stderr.contains("passed"), "the child ran: \(control.stderr)")
        #expect(control.stderr.contains("lib/jxl/"), "without the capture libjxl prints: \(control.stderr)")
        #expect(!control.stderr.contains("TIFF") && !control.stderr.lowercased().contains("directory"), "\(control.stderr)")

        let captured = try await onOwnThread { try Self.runChild(mode: "capture") }
        #expect(captured.stderr.contains("passed"), "the child ran: \(captured.stderr)")
        #expect(!captured.stderr.contains("lib/jxl"), "\(captured.stderr)")
        #expect(!captured.stderr.contains("TIFF"), "\(captured.stderr)")
        #expect(!captured.stdout.contains("captured lines: 0"), "\(captured.stdout)")
        #expect(captured.stdout.contains("captured lines: "), "\(captured.stdout)")
    }

    @Test("Given lines, then only libjxl's file:line diagnostics count as codec lines")
    func diagnosticLines() {
        #expect(CodecOutputCapture.isCodecDiagnostic("./lib/jxl/decode.cc:990: invalid signature"))
        #expect(CodecOutputCapture.isCodecDiagnostic("lib/jxl/fields.cc:619: JXL_RETURN_IF_ERROR code=1"))
        #expect(!CodecOutputCapture.isCodecDiagnostic("lib/jxl/readme: words"))
        #expect(!CodecOutputCapture.isCodecDiagnostic("error: bad image data"))
    }
}
