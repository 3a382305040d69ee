import Synchronization

/// Process-wide defaults of the pipeline (SPEC M-1), replaceable at run time.
public enum WebImageDefaults {
    /// The manager display targets and the prefetcher use when none is given: whatever was set
    /// here, else ``ImageManager/shared``.
    public static var manager: any ImageManaging {
        get { ImageManager.defaults.withLock { $0.manager } ?? ImageManager.shared }
        set { ImageManager.defaults.withLock { $0.manager = newValue } }
    }
}
