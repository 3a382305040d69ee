import WebImage

/// imgproxy's `resizing_algorithm` (`ra`): the kernel every resample of the request uses.
public enum ResizingAlgorithm: String, Sendable, Hashable, CaseIterable {
    /// The source pixel under each result pixel's centre (`ResizeFilter/nearest`).
    case nearest
    /// Triangle filter, widened when shrinking (`ResizeFilter/bilinear`).
    case linear
    /// Catmull-Rom cubic, libvips' `cubic` kernel (`ResizeFilter/catmullRom`).
    case cubic
    /// Two-lobe Lanczos (`ResizeFilter/lanczos2`).
    case lanczos2
    /// Three-lobe Lanczos (`ResizeFilter/lanczos3`), the default.
    case lanczos3

    /// Whether the source may be decoded reduced (shrink-on-load): not for `nearest`, whose
    /// pixels must be source pixels, not the decoder's block averages.
    var allowsReducedDecode: Bool { self != .nearest }

    /// The resampler's kernel.
    public var filter: ResizeFilter {
        switch self {
        case .nearest: .nearest
        case .linear: .bilinear
        case .cubic: .catmullRom
        case .lanczos2: .lanczos2
        case .lanczos3: .lanczos3
        }
    }
}
