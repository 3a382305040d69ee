/// Why an image's gain map was not kept (SPEC H-2): the image is then its SDR base alone, and
/// this reason travels with it (``Image/gainMapIssue``) for `/info`, logs and metrics.
public struct GainMapIssue: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a short stable word for metric labels.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The container: the MPF index, or no gain-map image where the file says there is one.
        case container
        /// The XMP `hdrgm:` or ISO 21496-1 metadata is missing, malformed or out of range.
        case metadata
        /// The gain-map image cannot be decoded, or its size does not fit the base.
        case mapImage = "map_image"
        /// The gain map would exceed the decode limits (pixels or decoded bytes).
        case limits
        /// A processing step cannot carry the map (an arbitrary-angle rotation).
        case geometry
    }

    /// The kind of problem.
    public let kind: Kind
    /// What exactly, in plain words.
    public let reason: String

    public init(_ kind: Kind, _ reason: String) {
        self.kind = kind
        self.reason = reason
    }

    public var description: String { "gain map dropped (\(kind.rawValue)): \(reason)" }
}
