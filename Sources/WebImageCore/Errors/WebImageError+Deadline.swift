extension WebImageError {
    /// Which deadline ended a download or a load (SPEC R-2), with its length in seconds.
    public enum Deadline: Sendable, Hashable, CustomStringConvertible {
        /// The idle timeout: the server sent nothing (no connection, no response head, no body
        /// bytes) for this long (`ImageDownloaderConfiguration.downloadTimeout`).
        case idle(seconds: Double)
        /// The total deadline of one download, body included, redirects and retries included
        /// (`ImageDownloaderConfiguration.maximumDownloadDuration`): a server that keeps
        /// sending a byte now and then still ends here.
        case download(seconds: Double)
        /// The total deadline of one load through the manager: cache query, download, decode
        /// and transform (the `WebImageContext.maximumLoadDuration` context value).
        case load(seconds: Double)
        /// The drawing budget of one vector document (`SVGRenderBudget.maxDuration`): parsing
        /// and drawing an SVG took longer, or earlier documents that overran it are still
        /// being drawn.
        case render(seconds: Double)

        /// The deadline's length in seconds.
        public var seconds: Double {
            switch self {
            case .idle(let seconds), .download(let seconds), .load(let seconds), .render(let seconds): seconds
            }
        }

        /// A stable short name: `idle`, `download`, `load` or `render`.
        public var name: String {
            switch self {
            case .idle: "idle"
            case .download: "download"
            case .load: "load"
            case .render: "render"
            }
        }

        public var description: String {
            let amount = Self.format(seconds)
            return switch self {
            case .idle: "the server sent nothing for \(amount) (idle timeout)"
            case .download: "the download took longer than its total deadline of \(amount)"
            case .load: "the load (download, decode and transform) took longer than its total deadline of \(amount)"
            case .render: "drawing the vector document did not finish within its budget of \(amount)"
            }
        }

        /// `3 s`, `0.25 s`.
        static func format(_ seconds: Double) -> String {
            if seconds == seconds.rounded(), abs(seconds) < 1e9 { return "\(Int(seconds)) s" }
            return "\((seconds * 1000).rounded() / 1000) s"
        }
    }
}
