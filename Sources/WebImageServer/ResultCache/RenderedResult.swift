import NIOCore

/// A rendered response body and what describes it.
struct RenderedResult: Sendable {
    /// The encoded image, kept as the buffer responses send (no copy per response).
    var body: ByteBuffer
    /// The image format; `nil` for an `/info` answer (JSON).
    var format: OutputFormat?
}
