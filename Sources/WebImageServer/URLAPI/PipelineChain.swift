import Foundation

/// The option segments of a URL read as chained pipelines (imgproxy's `/-/`, SPEC V-16): a `-`
/// segment starts the next pipeline, whose options apply to the previous one's result.
///
/// Presets follow imgproxy's rules: a preset applies to the pipeline where it is used; a preset
/// that holds `-` segments chains its later pipelines onto the following ones, merged with the
/// URL's own (the preset's options first, then the URL's).
struct PipelineChain {
    /// The separator segment.
    static let separator = "-"

    /// Each pipeline's options, first to last.
    private(set) var pipelines: [ProcessingOptions]
    let presets: PresetTable

    /// A chain of one pipeline, `first`, expanding presets from `presets`.
    init(presets: PresetTable, first: ProcessingOptions = ProcessingOptions()) {
        self.presets = presets
        pipelines = [first]
    }

    /// Applies `segments` starting in pipeline `start`.
    mutating func apply(_ segments: [String], from start: Int, depth: Int) throws(ImageServiceError) {
        var current = start
        for segment in segments {
            if segment == Self.separator {
                current += 1
                if pipelines.count <= current { pipelines.append(ProcessingOptions()) }
                continue
            }
            let name = segment.prefix { $0 != ":" }
            guard name == "preset" || name == "pr" else {
                try pipelines[current].apply(segment: segment, presets: presets, depth: depth)
                continue
            }
            let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map { String($0).removingPercentEncoding ?? String($0) }
            let args = OptionArguments(option: String(name), values: Array(parts.dropFirst()))
            guard !args.values.isEmpty else { throw args.bad("expected preset names") }
            guard depth < ProcessingOptions.maximumPresetDepth else { throw args.bad("presets nested too deeply") }
            for presetName in args.values {
                guard let inner = presets.presets[presetName] else { throw args.bad("unknown preset '\(presetName)'") }
                try apply(inner, from: current, depth: depth + 1)
                pipelines[current].presets.append(presetName)
            }
        }
    }

    /// The first pipeline's options carrying the later ones (``ProcessingOptions/chained``).
    /// The options that describe the answer rather than a pipeline's pixels (format, quality,
    /// metadata, limits, file name, …) are the request's wherever they appear: the last
    /// pipeline to set one wins.
    func options(maxPipelines: Int) throws(ImageServiceError) -> ProcessingOptions {
        if maxPipelines > 0, pipelines.count > maxPipelines {
            throw .badOption(
                option: Self.separator,
                reason: "\(pipelines.count) chained pipelines, over the limit of \(maxPipelines) (max-chained-pipelines)")
        }
        var options = pipelines[0]
        for later in pipelines.dropFirst() { options.takeRequestOptions(from: later) }
        options.chained = Array(pipelines.dropFirst())
        return options
    }
}

extension ProcessingOptions {
    /// Copies from `other` every request-wide option it sets (differs from the default).
    mutating func takeRequestOptions(from other: ProcessingOptions) {
        let defaults = ProcessingOptions()
        func take<Value: Equatable>(_ field: WritableKeyPath<ProcessingOptions, Value>) {
            if other[keyPath: field] != defaults[keyPath: field] { self[keyPath: field] = other[keyPath: field] }
        }
        take(\.quality)
        take(\.format)
        take(\.maxBytes)
        take(\.autoRotate)
        take(\.stripMetadata)
        take(\.stripColorProfile)
        take(\.keepCopyright)
        take(\.enforceThumbnail)
        take(\.avifOptions)
        take(\.disableAnimation)
        take(\.preserveHDR)
        take(\.fallbackImageURL)
        take(\.autoquality)
        take(\.autoqualityArguments)
        take(\.jpegOptions)
        take(\.pngOptions)
        take(\.webpOptions)
        take(\.bestFormat)
        take(\.cacheBuster)
        take(\.expires)
        take(\.raw)
        take(\.returnAttachment)
        take(\.filename)
        take(\.limits)
        if !other.formatQuality.isEmpty { formatQuality.merge(other.formatQuality) { $1 } }
        skipProcessing.formUnion(other.skipProcessing)
    }
}
