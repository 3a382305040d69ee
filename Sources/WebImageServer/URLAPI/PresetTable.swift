import Foundation

/// Named option lists from the configuration (`--preset NAME=OPTIONS`), expanded by `pr:NAME`;
/// the preset called `default` applies to every request before its own options (SPEC V-2).
public struct PresetTable: Sendable, Hashable {
    /// Each preset's option segments (`name:arg:arg`), in order.
    public private(set) var presets: [String: [String]] = [:]

    /// An empty table.
    public init() {}

    /// Adds (or replaces) `name` with `options`, imgproxy's preset syntax: segments separated by
    /// `/`, e.g. `rs:fill:300:300/q:80`, `-` chaining pipelines (`PipelineChain`). Checks the segments now, so a bad preset fails at start.
    public mutating func define(_ name: String, options: String) throws(ImageServiceError) {
        guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else {
            throw .badOption(option: "preset", reason: "invalid preset name '\(name)'")
        }
        let segments = options.split(separator: "/").map(String.init)
        var scratch = self
        scratch.presets[name] = segments
        var probe = PipelineChain(presets: scratch)
        try probe.apply(segments, from: 0, depth: 1)
        presets[name] = segments
    }

    /// Parses `NAME=OPTIONS` as given on the command line.
    public mutating func define(_ assignment: String) throws(ImageServiceError) {
        guard let equals = assignment.firstIndex(of: "=") else {
            throw .badOption(option: "preset", reason: "expected NAME=OPTIONS, got '\(assignment)'")
        }
        try define(String(assignment[..<equals]), options: String(assignment[assignment.index(after: equals)...]))
    }
}
