import Foundation
import WebImageCore

extension GIFCoder: ProgressiveImageDecoding {
    /// Whether `header` starts like a GIF (progressive display works for every GIF).
    public func canDecodeIncrementally(_ header: Data) -> Bool {
        canDecode(header)
    }

    /// A fresh ``GIFIncrementalDecoder`` for one download.
    public func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoder {
        GIFIncrementalDecoder(options: options)
    }
}

/// Progressive display of a GIF while it downloads (SPEC D-8): the first frame, row by row.
///
/// - While the first frame's data is arriving, each update that decodes more rows returns the
///   canvas with those rows drawn (interlaced frames fill in pass by pass; rows not yet decoded
///   are transparent).
/// - Once the first frame is complete it is returned once as a still image; later updates
///   return `nil` until the data is complete.
/// - The final update (`isComplete`) returns the full decode, with every frame.
///
/// Each partial update decodes the first frame again from the start of the data (the data is a
/// growing prefix); the cost is bounded by the first frame. Limits are checked on every update;
/// an over-limit image shows nothing and the final update throws.
///
/// Single owner (one download), not thread-safe.
public final class GIFIncrementalDecoder: IncrementalImageDecoder {
    private let options: DecodeOptions
    private var rowsShown = 0
    private var firstFrameShown = false

    /// Creates a decoder for one download.
    public init(options: DecodeOptions = .default) {
        self.options = options
    }

    /// Feeds the bytes received so far.
    /// - Returns: a partial first frame when more of it can be shown than at the last call, the
    ///   complete image when `isComplete`, or `nil`.
    /// - Throws: ``/WebImageCore/WebImageError`` only when `isComplete` and the data is not a decodable GIF.
    public func update(_ data: Data, isComplete: Bool) throws -> Image? {
        if isComplete { return try GIFCoder().decode(data, options: options) }
        guard !firstFrameShown, ImageFormat.detect(data) == .gif else { return nil }
        return try? data.withUnsafeBytes { bytes -> Image? in
            let structure = try GIFStructure.scan(bytes, maxFrames: 1)
            guard !structure.frames.isEmpty || structure.truncatedFrame != nil else { return nil }
            let canvas = structure.canvasSize
            try options.limits.check(canvas: canvas)
            let sequence = try GIFFrameSequence(bytes: bytes, structure: structure, limits: options.limits)
            guard let first = try sequence.next(allowPartial: true) else { return nil }
            if first.isComplete {
                firstFrameShown = true
            } else {
                guard first.rowsDecoded > rowsShown else { return nil }
                rowsShown = first.rowsDecoded
            }
            let target = options.targetSize(for: canvas)
            let pixels = target == canvas ? first.pixels : first.pixels.thumbnail(to: target)
            return Image(pixels: pixels, scale: options.imageScale, format: .gif, hasAlpha: !pixels.isFullyOpaque())
        }
    }
}
