import Synchronization

/// Process-wide defaults of the pipeline (SPEC M-1), replaceable at run time.
public enum WebImageDefaults {
    private static let storage = Mutex<(any ImageManaging)?>(nil)

    /// The manager display targets and the prefetcher use when none is given: whatever was set
    /// here, else ``ImageManager/shared``.
    public static var manager: any ImageManaging {
        get { storage.withLock { $0 } ?? ImageManager.shared }
        set { storage.withLock { $0 = newValue } }
    }
}
