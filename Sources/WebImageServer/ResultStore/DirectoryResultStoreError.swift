/// Why a ``DirectoryResultStore`` could not read or write.
public enum DirectoryResultStoreError: Error, Sendable, CustomStringConvertible {
    /// The store's directory does not exist or is not a directory.
    case missingDirectory(String)
    /// A file could not be read.
    case unreadable(String, String)
    /// A file or directory could not be written.
    case unwritable(String, String)

    public var description: String {
        switch self {
        case let .missingDirectory(path): "result store directory \(path) does not exist (or is not a directory)"
        case let .unreadable(path, reason): "cannot read result store entry \(path): \(reason)"
        case let .unwritable(path, reason): "cannot write result store entry \(path): \(reason)"
        }
    }
}
