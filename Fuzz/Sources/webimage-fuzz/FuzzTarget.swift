import Foundation
@testable import WebImageCodecs

/// One libFuzzer entry point: a name, what it runs on one input, and the limits its runs use.
///
/// A target returns normally for every input it accepts or refuses with a typed error; anything
/// else — a trap, an untyped error, an invariant broken, a leak, a hang past `-timeout`, memory
/// past `-rss_limit_mb` — is a finding.
struct FuzzTarget: Sendable {
    let name: String
    /// What it exercises, for `--list` and docs/FUZZING.md.
    let summary: String
    /// libFuzzer's `-max_len` for it.
    let maxLength: Int
    /// The dictionary file under `Fuzz/dictionaries`, if its format has magic words.
    let dictionary: String?
    /// Whether `../shared/corpus` seeds it (image targets); the others start from ``seeds``.
    let usesImageCorpus: Bool
    let seeds: @Sendable () -> [(name: String, data: Data)]
    let run: @Sendable (Data) -> Void

    /// Every target, by name.
    static let all: [FuzzTarget] = [
        decodeTarget, headerTarget, requestPathTarget, sourceURLTarget, svgSanitizerTarget, diskIndexTarget,
        colorProfileTarget, placeholderTarget, s3Target, jpegScansTarget, jpegEighthTarget, gainMapTarget,
    ]

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }

    /// The target libFuzzer runs, from `WEBIMAGE_FUZZ_TARGET` (read once).
    static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["WEBIMAGE_FUZZ_TARGET"] ?? ""
        guard let target = named(name) else {
            FileHandle.standardError.write(Data("webimage-fuzz: set WEBIMAGE_FUZZ_TARGET to one of: \(all.map(\.name).joined(separator: ", "))\n".utf8))
            exit(2)
        }
        return target
    }()

    /// Runs the target on one input, then checks that nothing of the input stays in the shared
    /// colour caches: every input is judged on its own, and a transform it left there would
    /// read as its leak (LeakSanitizer cannot see the cache's spare-bit-packed enum payloads).
    func judge(_ data: Data) {
        run(data)
        let left = ColorTransformCache.shared.count + HDRTransformCache.shared.count
        if left > 0 { FuzzTarget.finding("\(name): the input left \(left) transforms in the shared colour caches") }
    }

    /// Empties the shared colour caches (after an input that decodes with colour management on).
    static func forgetSharedColorTransforms() {
        ColorTransformCache.shared.removeAll()
        HDRTransformCache.shared.removeAll()
    }

    /// Stops the run as a finding, with `message` on stderr (libFuzzer saves the input).
    static func finding(_ message: String) -> Never {
        FileHandle.standardError.write(Data("webimage-fuzz finding: \(message)\n".utf8))
        abort()
    }
}
