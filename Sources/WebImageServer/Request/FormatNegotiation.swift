import WebImage

/// What `Accept` chooses when the URL does not fix the format: the one mapping from the header
/// to a ``FormatVariant``, for the hit path and the full path alike.
struct FormatNegotiation: Sendable {
    /// Whether AVIF, WebP is answered to clients that accept it.
    var autoAVIF, autoWebP: Bool
    /// The `best-format-*` settings (`format:best`, and requests without a format when
    /// ``BestFormatSettings/byDefault``).
    var best = BestFormatSettings()

    /// Whether `Accept` can change the answer at all.
    var negotiates: Bool { autoAVIF || autoWebP }

    /// The variant `accept` gets.
    func variant(accept: String?) -> FormatVariant {
        guard negotiates else { return .any }
        let accepted = (accept ?? "").lowercased()
        if autoAVIF, accepted.contains("image/avif") { return .avif }
        if autoWebP, accepted.contains("image/webp") { return .webp }
        return .other
    }
}
