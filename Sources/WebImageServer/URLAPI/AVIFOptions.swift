import WebImage

/// imgproxy's `avif_options` (`avifo`) and the `avif-subsample` setting: whether an AVIF result
/// halves its chroma planes (`AVIFEncodeSettings/ChromaSubsampling`); `nil` takes the
/// service's.
///
/// imgproxy's option has one argument, `subsample`: `auto` (4:2:0 below quality 90, 4:4:4 from
/// it), `on` (always 4:2:0) or `off` (always 4:4:4). libaom's speed is not a URL argument, as in
/// imgproxy (`IMGPROXY_AVIF_SPEED` is a setting only): a request could otherwise make its encode
/// many times slower; the `avif-speed` setting chooses it.
public struct AVIFOptions: Sendable, Hashable {
    /// The chroma subsampling; `nil` is the service's.
    public var subsample: AVIFEncodeSettings.ChromaSubsampling?

    /// `subsample`, or the service's.
    public init(subsample: AVIFEncodeSettings.ChromaSubsampling? = nil) {
        self.subsample = subsample
    }

    /// These fields over `base`'s.
    func over(_ base: AVIFOptions) -> AVIFOptions {
        AVIFOptions(subsample: subsample ?? base.subsample)
    }

    /// A stable text for cache keys; `nil` when no field is set.
    var canonicalText: String? {
        subsample.map { "avifo:\($0.rawValue)" }
    }

    /// Parses `subsample` (`auto`, `on` or `off`); anything else throws naming `option`.
    static func parse(_ values: [String], option: String = "avif_options") throws(ImageServiceError) -> AVIFOptions {
        let args = OptionArguments(option: option, values: values)
        try args.requireCount(1...1)
        guard let text = args.nonEmpty(0) else { return AVIFOptions() }
        guard let subsample = AVIFEncodeSettings.ChromaSubsampling(rawValue: text) else {
            throw args.bad("subsample '\(text)' is not auto, on or off")
        }
        return AVIFOptions(subsample: subsample)
    }
}
