import Foundation

/// File names for downloaded images inside an output directory: the URL's last path component,
/// reduced to safe characters (never a path separator, never `.` or `..`, never hidden), with
/// the extension replaced when the image is re-encoded, and de-duplicated within a run
/// (`a.png`, `a-1.png`, `a-2.png`…).
struct OutputFileNames {
    private var used: Set<String> = []
    /// Longest base name kept (file systems limit names to 255 bytes).
    static let maximumBaseLength = 100

    /// A new name for `url`; `fileExtension` replaces the URL's extension when given.
    mutating func name(for url: URL, fileExtension: String?) -> String {
        let (base, originalExtension) = Self.sanitizedParts(of: url.lastPathComponent)
        let ext = fileExtension ?? originalExtension
        var candidate = Self.join(base, ext)
        var counter = 1
        while used.contains(candidate.lowercased()) {
            candidate = Self.join("\(base)-\(counter)", ext)
            counter += 1
        }
        used.insert(candidate.lowercased())
        return candidate
    }

    /// `url` resolved inside `directory`, checked not to leave it.
    static func destination(_ name: String, in directory: URL) -> URL? {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else { return nil }
        let url = directory.appendingPathComponent(name, isDirectory: false).standardizedFileURL
        guard url.deletingLastPathComponent().path == directory.standardizedFileURL.path else { return nil }
        return url
    }

    private static func join(_ base: String, _ ext: String?) -> String {
        guard let ext, !ext.isEmpty else { return base }
        return base + "." + ext
    }

    /// The base name and extension of `component` with every character outside
    /// `[A-Za-z0-9_-]` replaced by `_` (dots only separate the extension).
    static func sanitizedParts(of component: String) -> (base: String, ext: String?) {
        func clean(_ text: Substring) -> String {
            String(text.unicodeScalars.map { scalar -> Character in
                let allowed = scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_")
                return allowed ? Character(scalar) : "_"
            })
        }
        var base: Substring = Substring(component)
        var ext: String?
        if let dot = component.lastIndex(of: "."), dot != component.startIndex {
            base = component[..<dot]
            let candidate = clean(component[component.index(after: dot)...])
            if !candidate.isEmpty && candidate.count <= 10 { ext = candidate.lowercased() }
        }
        var cleaned = clean(base)
        cleaned = String(cleaned.prefix(maximumBaseLength))
        if cleaned.isEmpty || cleaned.allSatisfy({ $0 == "_" }) { cleaned = "image" }
        return (cleaned, ext)
    }
}
