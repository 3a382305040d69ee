import WebImage

/// The output formats the service can encode.
public enum OutputFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg = "jpg", png, webp, avif, gif

    /// The format named by an imgproxy extension (`jpg`, `jpeg`, `png`, `webp`, `avif`, `gif`).
    public init?(name: String) {
        switch name.lowercased() {
        case "jpg", "jpeg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "avif": self = .avif
        case "gif": self = .gif
        default: return nil
        }
    }

    /// The pipeline's format.
    public var imageFormat: ImageFormat {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        case .avif: .avif
        case .gif: .gif
        }
    }

    /// The output format for a source format, if the service can encode it.
    public init?(_ format: ImageFormat) {
        switch format {
        case .jpeg: self = .jpeg
        case .png: self = .png
        case .webp: self = .webp
        case .avif: self = .avif
        case .gif: self = .gif
        default: return nil
        }
    }

    /// Whether the format keeps animation.
    public var isAnimatable: Bool { self == .webp || self == .gif || self == .png }
}
