import ArgumentParser

/// The one place where numeric command-line values are checked, so that every command that
/// takes the same option accepts the same values and says the same thing about the others:
/// numbers must be finite and within the listed range, checked before anything is allocated.
enum OptionLimits {
    /// Thumbnail and resize edges, in pixels.
    static let pixels = 1...65_535
    /// Network timeouts, in seconds.
    static let timeoutSeconds = 0.001...3600.0
    /// Quality of lossy encoders.
    static let quality = 0...100
    /// Loads in flight.
    static let concurrency = 1...256
    /// The longest `--max-age`: 100 years, in seconds.
    static let maxAgeSeconds = 3_155_760_000.0
    /// Blur and corner radii, in pixels.
    static let radius = 0.0...65_535.0

    /// `--thumbnail`, `--resize` edges: whole pixels within ``pixels``.
    static func checkPixels(_ value: Int?, option: String) throws {
        guard let value else { return }
        guard pixels.contains(value) else {
            throw ValidationError("\(option) must be between \(pixels.lowerBound) and \(pixels.upperBound) pixels; got \(value).")
        }
    }

    /// `--timeout`: finite seconds, more than 0 and at most an hour.
    static func checkTimeout(_ value: Double, option: String = "--timeout") throws {
        guard value.isFinite, value > 0, value <= timeoutSeconds.upperBound else {
            throw ValidationError("\(option) must be more than 0 and at most \(Int(timeoutSeconds.upperBound)) seconds; got \(value).")
        }
    }

    /// `--quality`: 0…100.
    static func checkQuality(_ value: Int?) throws {
        guard let value else { return }
        guard quality.contains(value) else { throw ValidationError("--quality must be between 0 and 100; got \(value).") }
    }

    /// `--concurrency`: 1…256.
    static func checkConcurrency(_ value: Int) throws {
        guard concurrency.contains(value) else {
            throw ValidationError("--concurrency must be between \(concurrency.lowerBound) and \(concurrency.upperBound); got \(value).")
        }
    }

    /// A byte count that must be positive (`--max-file-size`).
    static func checkPositiveBytes(_ value: Int?, option: String) throws {
        guard let value else { return }
        guard value > 0 else { throw ValidationError("\(option) must be a positive number of bytes; got \(value).") }
    }

    /// `cache clean --max-size`: 0 (no limit) or a positive number of bytes.
    static func checkMaxSize(_ value: Int?) throws {
        guard let value else { return }
        guard value >= 0 else { throw ValidationError("--max-size must be 0 (no limit) or a positive number of bytes; got \(value).") }
    }

    /// `cache clean --max-age`: finite seconds up to 100 years; a negative age means never.
    static func checkMaxAge(_ value: Double?) throws {
        guard let value else { return }
        guard value.isFinite, value <= maxAgeSeconds else {
            throw ValidationError(
                "--max-age must be a number of seconds up to \(Int(maxAgeSeconds)) (100 years), or negative for never; got \(value).")
        }
    }

    /// Blur and corner radii: finite pixels within ``radius``.
    static func checkRadius(_ value: Double?, option: String) throws {
        guard let value else { return }
        guard value.isFinite, radius.contains(value) else {
            throw ValidationError("\(option) must be a radius between 0 and \(Int(radius.upperBound)) pixels; got \(value).")
        }
    }
}
