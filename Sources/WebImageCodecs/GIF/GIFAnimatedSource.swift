import Foundation
import WebImageCore

/// Lazy access to a GIF's composited frames (SPEC A-1).
///
/// Opening reads the block structure only (frame table, delays, loop count). Frames are
/// decoded on demand: asking for the next frame, or the same one again, is cheap; asking for an
/// earlier frame restarts decoding from the first frame, because each GIF frame is drawn on top
/// of the ones before it. At most one composited canvas (plus the last returned frame) is held.
///
/// Thumbnail options apply: frames come out at ``/WebImageCore/DecodeOptions/targetSize(for:)`` of the canvas.
/// With ``/WebImageCore/DecodeOptions/firstFrameOnly`` the source has one frame.
///
/// Single owner, not thread-safe (as ``/WebImageCore/AnimatedImageSource`` requires).
public final class GIFAnimatedSource: AnimatedImageSource {
    /// Size of the frames returned (the canvas, or the thumbnail size).
    public let canvasSize: PixelSize
    /// Number of complete frames found by the block scan.
    public let frameCount: Int
    /// Loop count: the NETSCAPE2.0 value (0 = forever), or 1 without the extension.
    public let loopCount: Int

    private let bytes: [UInt8]
    private let structure: GIFStructure
    private let options: DecodeOptions
    private var sequence: GIFFrameSequence?
    private var lastIndex = -1
    private var lastFrame: PixelBuffer?

    /// Opens `data`.
    /// - Throws: `badImageData` when `data` is not a GIF with a complete frame; `imageTooLarge`
    ///   when the canvas or the frame count exceeds the limits.
    public init(data: Data, options: DecodeOptions = .default) throws {
        guard ImageFormat.detect(data) == .gif else { throw WebImageError.badImageData(reason: "GIF: not a GIF file") }
        bytes = [UInt8](data)
        structure = try bytes.withUnsafeBytes { try GIFStructure.scan($0, maxFrames: options.limits.maxFrameCount) }
        let canvas = structure.canvasSize
        try options.limits.check(canvas: canvas)
        guard !structure.frames.isEmpty else { throw WebImageError.badImageData(reason: "GIF: no complete image") }
        guard structure.frames.count <= options.limits.maxFrameCount else {
            throw WebImageError.imageTooLarge(
                reason: "\(structure.frames.count) frames; the limit is \(options.limits.maxFrameCount)")
        }
        self.options = options
        frameCount = options.firstFrameOnly ? 1 : structure.frames.count
        loopCount = structure.loopCount
        canvasSize = options.targetSize(for: canvas)
    }

    /// The display duration of frame `index` in seconds (clamped per ``/WebImageCore/FrameDelay``); 0 for an
    /// index out of range.
    public func duration(ofFrame index: Int) -> Double {
        guard index >= 0, index < frameCount else { return 0 }
        return GIFCoder.duration(of: structure.frames[index])
    }

    /// The composited frame `index`.
    /// - Throws: `badImageData` for an index out of range or a frame whose data is damaged.
    public func frame(at index: Int) throws -> PixelBuffer {
        guard index >= 0, index < frameCount else {
            throw WebImageError.badImageData(reason: "GIF: frame \(index) out of range 0..<\(frameCount)")
        }
        if index == lastIndex, let lastFrame { return lastFrame }
        if sequence == nil || index < (sequence?.framesDecoded ?? 0) {
            sequence = nil
            lastFrame = nil
            lastIndex = -1
            sequence = try bytes.withUnsafeBytes {
                try GIFFrameSequence(bytes: $0, structure: structure, limits: options.limits)
            }
        }
        guard let sequence else { throw WebImageError.badImageData(reason: "GIF: cannot open") }
        while sequence.framesDecoded <= index {
            let decodedIndex = sequence.framesDecoded
            let decoded: GIFFrameSequence.DecodedFrame?
            do {
                decoded = try sequence.next()
            } catch {
                self.sequence = nil  // a failed session cannot continue; the next call restarts
                throw error
            }
            guard let next = decoded else {
                self.sequence = nil
                throw WebImageError.badImageData(reason: "GIF: frame \(decodedIndex) is missing")
            }
            if decodedIndex == index {
                var pixels = canvasSize == sequence.canvasSize ? next.pixels : next.pixels.thumbnail(to: canvasSize)
                // Converted to sRGB like a whole decode's frames (G-2).
                if options.colorManagement == .convertToSRGB, let profile = structure.colorProfile {
                    pixels = ColorConversion.toSRGB(pixels, from: profile)
                }
                lastIndex = index
                lastFrame = pixels
                return pixels
            }
        }
        throw WebImageError.badImageData(reason: "GIF: frame \(index) is missing")
    }
}
