import Foundation

/// The shared test corpus (`../shared/corpus` beside the project root), read in place.
///
/// Tests find it from this source file's location, or from `WEBIMAGE_CORPUS` when set.
public enum Corpus {
    /// The corpus root, or `nil` when it is not present.
    public static let root: URL? = {
        if let env = ProcessInfo.processInfo.environment["WEBIMAGE_CORPUS"], !env.isEmpty {
            return URL(fileURLWithPath: env, isDirectory: true)
        }
        // .../<project>/Sources/WebImageTesting/Corpus.swift → .../<project>/../shared/corpus
        let project = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let candidate = project.deletingLastPathComponent().appendingPathComponent("shared/corpus", isDirectory: true)
        return FileManager.default.fileExists(atPath: candidate.path) ? candidate : nil
    }()

    /// Whether the corpus is available (tests that need it are skipped otherwise).
    public static var isAvailable: Bool { root != nil }

    /// The URL of a corpus file given its manifest path.
    public static func url(_ path: String) -> URL {
        guard let root else { fatalError("corpus not found: set WEBIMAGE_CORPUS or place it at ../shared/corpus") }
        return root.appendingPathComponent(path)
    }

    /// The bytes of a corpus file.
    public static func data(_ path: String) throws -> Data {
        try Data(contentsOf: url(path))
    }

    /// Every entry of `manifest.tsv`.
    public static let manifest: [CorpusEntry] = {
        guard let root, let text = try? String(contentsOf: root.appendingPathComponent("manifest.tsv"), encoding: .utf8)
        else { return [] }
        return text.split(separator: "\n").dropFirst().compactMap(CorpusEntry.init(line:))
    }()

    /// Manifest entries whose path starts with `prefix` and that satisfy `filter`.
    public static func entries(under prefix: String = "", where filter: (CorpusEntry) -> Bool = { _ in true }) -> [CorpusEntry] {
        manifest.filter { $0.path.hasPrefix(prefix) && filter($0) }
    }

    /// The reference renderings for an input: one path for a still image, one per frame
    /// (`.anim_NN.png`, in order) for an animation (preferred when both exist); empty when there
    /// is none.
    public static func referenceRenderings(for path: String) -> [String] {
        guard let root else { return [] }
        // Reference folders use the extension family name: jpeg-misc/progressive/x.jpg →
        // reference-renderings/jpg/progressive/x.jpg.png; png/apng → png/apng; gif → gif.
        var relative = path
        let mappings = [
            ("jpeg-misc/", "jpg/"), ("gif/", "gif/"), ("apng/", "png/apng/"), ("webp-misc/", "webp/"),
            ("png-misc/", "png/"),
        ]
        for (from, to) in mappings where path.hasPrefix(from) {
            relative = to + path.dropFirst(from.count)
        }
        let base = "reference-renderings/" + relative
        let fm = FileManager.default
        var frames: [String] = []
        var index = 1
        while true {
            let candidate = base + String(format: ".anim_%02d.png", index)
            guard fm.fileExists(atPath: root.appendingPathComponent(candidate).path) else { break }
            frames.append(candidate)
            index += 1
        }
        if frames.isEmpty, fm.fileExists(atPath: root.appendingPathComponent(base + ".png").path) {
            return [base + ".png"]
        }
        return frames
    }
}

/// One line of the corpus manifest.
public struct CorpusEntry: Sendable, CustomStringConvertible {
    public let path: String
    public let size: Int
    public let format: String
    /// Declared or decoded dimensions, `nil` when unknown.
    public let width: Int?
    public let height: Int?
    public let frames: Int?
    public let animated: String
    public let expected: String
    public let notes: String

    init?(line: Substring) {
        let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard f.count >= 7 else { return nil }
        path = f[0]
        size = Int(f[1]) ?? 0
        format = f[2]
        let dims = f[3].split(separator: " ").first.map(String.init) ?? ""
        let wh = dims.split(separator: "x")
        if wh.count == 2, let w = Int(wh[0]), let h = Int(wh[1]) {
            width = w
            height = h
        } else {
            width = nil
            height = nil
        }
        frames = Int(f[4])
        animated = f[5]
        expected = f[6]
        notes = f.count > 9 ? f[9] : ""
    }

    /// "decodes" in any of its spellings (including the lenient ones).
    public var mustDecode: Bool { expected.hasPrefix("decodes") }
    /// "MUST FAIL cleanly" / "must fail cleanly".
    public var mustFail: Bool { expected.lowercased().hasPrefix("must fail") }
    /// "MUST REJECT …" (limits error before allocating).
    public var mustReject: Bool { expected.lowercased().hasPrefix("must reject") }
    /// "no crash …; fail cleanly" or "fail cleanly or partial image": either outcome is fine.
    public var mayFail: Bool { expected.hasPrefix("no crash") || expected.hasPrefix("fail cleanly or partial") }
    /// An actual image input (not a licence file or a reference rendering).
    public var isInput: Bool { mustDecode || mustFail || mustReject || mayFail || expected.hasPrefix("vector") || expected.hasPrefix("decodes only") || expected == "expected" }

    public var description: String { path }
}
