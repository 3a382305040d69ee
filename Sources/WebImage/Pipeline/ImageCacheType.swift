/// Which cache layer an image came from, or which layers an operation reads or writes
/// (SPEC ).
public enum ImageCacheType: Sendable, Hashable, CaseIterable {
    /// No cache: the image was downloaded (as a result) / touch no layer (as an instruction).
    case none
    /// The memory cache.
    case memory
    /// The disk cache.
    case disk
    /// Both layers (as an instruction).
    case all

    /// Whether this instruction includes the memory layer.
    public var includesMemory: Bool { self == .memory || self == .all }
    /// Whether this instruction includes the disk layer.
    public var includesDisk: Bool { self == .disk || self == .all }
}
