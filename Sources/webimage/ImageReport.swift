import Foundation
import WebImage

/// What `webimage info` (and the demo) learns about one file: its header metadata and,
/// optionally, how a full decode went. Encoded as one JSON object per file.
struct ImageReport: Encodable {
    var file: String
    var format: String?
    /// Stored pixel size (before orientation is applied).
    var width: Int?
    var height: Int?
    var frames: Int?
    var loopCount: Int?
    /// EXIF orientation 1–8.
    var orientation: Int?
    var animated: Bool?
    /// The name of the colour profile the file carries (`nil`: untagged, read as sRGB).
    var colorProfile: String?
    /// The first failure (`WebImageError.description`), `nil` when everything worked.
    var error: String?
    /// The full decode's wall time in milliseconds; only with `--decode`.
    var decodeMs: Double?
    /// The stable code of the failure (`WebImageError.code`), `nil` for success or untyped errors.
    var errorCode: String?
    /// Whether the failure happened while decoding (the header was read).
    var failedInDecode = false
    /// Whether a decode was asked for (then `decodeMs` is written, even as `null`).
    var includesDecode = false
    /// The decoded image, kept for the demo's thumbnails (not encoded).
    var decodedImage: Image?
    /// Whether placeholders were asked for (then the three placeholder keys are written).
    var includesPlaceholders = false
    /// The BlurHash (components from the aspect ratio); only with `--placeholders`.
    var blurHash: String?
    /// The ThumbHash, base64; only with `--placeholders`.
    var thumbHash: String?
    /// The five dominant colours, largest share first; only with `--placeholders`.
    var dominantColors: [ColorShare]?

    /// One dominant colour in the JSON: `{"hex": "#rrggbb", "share": 0.412}`.
    struct ColorShare: Encodable {
        var hex: String
        /// Fraction of the visible pixels, rounded to 3 decimals.
        var share: Double
    }

    private enum CodingKeys: String, CodingKey {
        case file, format, width, height, frames, loopCount, orientation, animated, colorProfile, error, decodeMs
        case blurHash, thumbHash, dominantColors
    }

    /// Every key is written, `null` when unknown, so that the JSON shape never changes.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(file, forKey: .file)
        try container.encode(format, forKey: .format)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(frames, forKey: .frames)
        try container.encode(loopCount, forKey: .loopCount)
        try container.encode(orientation, forKey: .orientation)
        try container.encode(animated, forKey: .animated)
        try container.encode(colorProfile, forKey: .colorProfile)
        try container.encode(error, forKey: .error)
        if includesDecode { try container.encode(decodeMs, forKey: .decodeMs) }
        if includesPlaceholders {
            try container.encode(blurHash, forKey: .blurHash)
            try container.encode(thumbHash, forKey: .thumbHash)
            try container.encode(dominantColors, forKey: .dominantColors)
        }
    }

    var failed: Bool { error != nil }

    /// Inspects `data` (named `file` in the report): header metadata through
    /// `CodersManager.readMetadata`, then, when `placeholders` is set, the BlurHash, ThumbHash
    /// and dominant colours from a shrink-on-load decode of the first frame, then, when
    /// `decode` is set, a full timed decode. The decoded image is kept in ``decodedImage`` only
    /// when `keepImage` is set.
    static func inspect(
        _ data: Data, file: String, decode: Bool, placeholders: Bool = false, keepImage: Bool = false,
        options: DecodeOptions = .default, coders: CodersManager = .shared
    ) -> ImageReport {
        var report = ImageReport(file: file, includesDecode: decode, includesPlaceholders: placeholders)
        let detected = ImageFormat.detect(data)
        report.format = detected.rawValue
        do {
            let metadata = try coders.readMetadata(data)
            report.format = metadata.format.rawValue
            report.width = metadata.pixelSize.width
            report.height = metadata.pixelSize.height
            report.frames = metadata.frameCount
            report.loopCount = metadata.loopCount
            report.orientation = metadata.orientation.rawValue
            report.animated = metadata.isAnimated
            report.colorProfile = metadata.colorProfile?.name
        } catch {
            report.record(error)
        }
        if placeholders, report.error == nil {
            report.addPlaceholders(data, options: options, coders: coders)
        }
        guard decode, report.error == nil else { return report }
        let start = ContinuousClock.now
        if !keepImage, report.animated == true, let frameCount = report.frames, frameCount > 1,
            let animated = coders.animatedDecoder(for: data)
        {
            // SPEC R-3: an animation is decoded frame by frame through its lazy source, holding
            // one or two canvases instead of every frame.
            do {
                let source = try animated.makeAnimatedSource(data, options: options)
                for index in 0..<source.frameCount { _ = try source.frame(at: index) }
                report.decodeMs = milliseconds(start.duration(to: .now))
            } catch {
                report.decodeMs = milliseconds(start.duration(to: .now))
                report.record(error)
                report.failedInDecode = true
            }
            return report
        }
        do {
            let image = try coders.decode(data, options: options)
            report.decodeMs = milliseconds(start.duration(to: .now))
            if keepImage { report.decodedImage = image }
            if report.frames == nil { report.frames = image.frames.count }
        } catch {
            report.decodeMs = milliseconds(start.duration(to: .now))
            report.record(error)
            report.failedInDecode = true
        }
        return report
    }

    /// Decodes `data` for placeholders (first frame, shrunk on load,
    /// ``ImagePlaceholder/decodeOptions(_:)``) and records them, or the decode's error.
    private mutating func addPlaceholders(_ data: Data, options: DecodeOptions, coders: CodersManager) {
        do {
            let image = try coders.decode(data, options: ImagePlaceholder.decodeOptions(options))
            let summary = ImagePlaceholder.summary(of: image)
            blurHash = summary.blurHash
            thumbHash = summary.thumbHash
            dominantColors = summary.dominantColors.map { ColorShare(hex: $0.hex, share: ($0.share * 1000).rounded() / 1000) }
        } catch {
            record(error)
            failedInDecode = true
        }
    }

    /// Reads `path` and inspects it; a file that cannot be read gives a report with the error.
    static func inspect(path: String, decode: Bool, placeholders: Bool = false) -> ImageReport {
        do {
            let data = try LocalFile.read(path)
            return inspect(data, file: path, decode: decode, placeholders: placeholders)
        } catch {
            var report = ImageReport(file: path, includesDecode: decode, includesPlaceholders: placeholders)
            if case .fileAccess(_, let reason) = error {
                report.error = "cannot read file: \(reason)"
            } else {
                report.error = "cannot read file: \(error.description)"
            }
            report.errorCode = error.code
            return report
        }
    }

    private mutating func record(_ failure: any Error) {
        error = Self.message(for: failure)
        errorCode = (failure as? WebImageError)?.code
    }

    /// The typed error's message; anything else (never expected) by its description.
    static func message(for error: any Error) -> String {
        if let error = error as? WebImageError { return error.description }
        return String(describing: error)
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        let ms = Double(seconds) * 1000 + Double(attoseconds) / 1e15
        return (ms * 100).rounded() / 100
    }

    /// One line of JSON (sorted keys, no spaces).
    func jsonLine() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
