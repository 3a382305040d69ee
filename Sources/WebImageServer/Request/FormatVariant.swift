/// Which answer a request path gets when the `Accept` header chooses the format (SPEC V-6).
enum FormatVariant: UInt8, Sendable {
    /// The format does not depend on `Accept` (fixed by the URL, or negotiation is off).
    case any
    case avif
    case webp
    /// Negotiation is on and the client accepts neither AVIF nor WebP.
    case other
}
