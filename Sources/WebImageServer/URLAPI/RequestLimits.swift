/// The per-request limits of imgproxy's security options (`max_src_resolution`,
/// `max_src_file_size`, `max_animation_frames`, `max_animation_frame_resolution`,
/// `max_result_dimension`). Each can only lower the service's own limit, never raise it
/// (`ProcessingLimits.lowered(by:)`), so, unlike imgproxy, they need no setting to be allowed.
/// `nil` = the service's limit.
public struct RequestLimits: Sendable, Hashable {
    /// `max_src_resolution` (`msr`), in pixels (the URL gives megapixels).
    public var sourcePixels: Int?
    /// `max_src_file_size` (`msfs`), in bytes.
    public var sourceBytes: Int?
    /// `max_animation_frames` (`maf`).
    public var animationFrames: Int?
    /// `max_animation_frame_resolution` (`mafr`), in pixels per frame (the URL gives megapixels).
    public var animationFramePixels: Int?
    /// `max_result_dimension` (`mrd`): a result wider or higher is scaled down to fit, as in
    /// imgproxy (`ProcessingStep/resultDimension`).
    public var resultDimension: Int?

    /// No request limit.
    public init() {}

    /// Whether no limit is set.
    public var isEmpty: Bool { self == RequestLimits() }

    /// The limits as a canonical-form part; `nil` when none is set.
    var canonicalText: String? {
        guard !isEmpty else { return nil }
        let values = [sourcePixels, sourceBytes, animationFrames, animationFramePixels, resultDimension]
        return "lim:" + values.map { $0.map(String.init) ?? "-" }.joined(separator: ":")
    }
}
