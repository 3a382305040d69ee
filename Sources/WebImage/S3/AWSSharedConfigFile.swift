import Foundation

/// One of the AWS shared files, `~/.aws/credentials` or `~/.aws/config`, as the AWS SDKs read
/// them: INI sections of `key = value` lines; `#` and `;` start comment lines; names of keys are
/// case-insensitive; an indented line under a key with an empty value belongs to that key's
/// nested block and is kept as `key.nested` (`s3 =` / `  addressing_style = path` gives
/// `s3.addressing_style`).
struct AWSSharedConfigFile: Sendable {
    /// The largest file read; a bigger one is refused.
    static let maximumSize = 1 << 20

    /// Section name → key → value.
    private(set) var sections: [String: [String: String]] = [:]

    /// Parses `text`.
    init(text: String) {
        var section: String?
        var nestedParent: String?
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            let isIndented = rawLine.first == " " || rawLine.first == "\t"
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                let name = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                section = name
                nestedParent = nil
                if sections[name] == nil { sections[name] = [:] }
                continue
            }
            guard let current = section, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if isIndented, let parent = nestedParent {
                sections[current]?["\(parent).\(key)"] = value
            } else {
                sections[current]?[key] = value
                nestedParent = value.isEmpty ? key : nil
            }
        }
    }

    /// Reads and parses the file at `path`; `nil` when it does not exist.
    /// - Throws: ``/WebImageCore/WebImageError/fileAccess(path:reason:)`` when it exists but
    ///   cannot be read, or is larger than ``maximumSize``.
    static func read(_ path: String) throws -> AWSSharedConfigFile? {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        guard !isDirectory.boolValue else { throw WebImageError.fileAccess(path: path, reason: "it is a directory, not an AWS shared file") }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maximumSize else {
            throw WebImageError.fileAccess(path: path, reason: "larger than \(maximumSize) bytes, too large for an AWS shared file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw WebImageError.fileAccess(path: path, reason: "cannot be read")
        }
        return AWSSharedConfigFile(text: String(decoding: data.prefix(maximumSize), as: UTF8.self))
    }

    /// The keys of `section`, or `nil` when there is no such section.
    func section(_ name: String) -> [String: String]? {
        sections[name]
    }
}
