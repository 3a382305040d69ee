import Foundation

extension ServiceHarness {
    /// The value of the metric line `name` (with its labels, if any) on `/metrics`, or `nil`.
    func metric(_ name: String) async throws -> Double? {
        let text = try await get("/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    /// Waits until metric `name` reaches `value` (the test's time limit guards a value never reached).
    func waitForMetric(_ name: String, atLeast value: Double) async throws {
        while (try await metric(name) ?? 0) < value {
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// A fresh, empty directory under the temporary directory.
func temporaryStoreDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-result-store-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
