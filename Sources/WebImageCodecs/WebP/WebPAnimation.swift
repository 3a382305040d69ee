import CWebP
import Foundation
import WebImageCore

/// One open animated WebP: libwebp's animation decoder over a private copy of the file.
///
/// The demuxer reads the canvas size, frame table and loop count first, and the limits are
/// checked from them before the animation decoder allocates its canvases. Frames come out
/// composited (disposal and blending applied), in order; the decoder reuses its canvas, so
/// every frame handed out is copied into its own ``/WebImageCore/PixelBuffer``.
///
/// Single owner, not thread-safe (like ``/WebImageCore/AnimatedImageSource``).
final class WebPAnimation {
    /// Canvas size in pixels.
    let canvasSize: PixelSize
    /// Frames in the file.
    let frameCount: Int
    /// Loop count; 0 = forever.
    let loopCount: Int
    /// Frame durations in milliseconds, as stored.
    let durationsInMilliseconds: [Int]
    /// Index of the frame the next `WebPAnimDecoderGetNext` returns.
    private(set) var nextIndex = 0

    /// The compressed bytes the decoder reads from; they must outlive it.
    private let input: WebPInputBytes
    private let decoder: OpaquePointer

    /// Opens `data`, checking `limits` against the canvas and `framesToCheck(frameCount)` frames,
    /// or, when `oneFrameAtATime` is set (a lazy source, which holds libwebp's canvases and one
    /// copy whatever the frame count), against one canvas and the frame count only.
    init(_ data: Data, limits: DecodeLimits, oneFrameAtATime: Bool = false, framesToCheck: (Int) -> Int = { $0 }) throws {
        input = WebPInputBytes(data)
        var webPData = input.webPData

        // 1. Header and frame table only: no canvas is allocated yet.
        guard let demux = WebPDemux(&webPData) else {
            throw WebImageError.badImageData(reason: "WebP animation: invalid or truncated container")
        }
        let width = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH))
        let height = Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT))
        let frames = Int(WebPDemuxGetI(demux, WEBP_FF_FRAME_COUNT))
        let loops = Int(WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT))
        WebPDemuxDelete(demux)
        let size = PixelSize(width: width, height: height)
        try limits.check(canvas: size)
        guard frames > 0 else { throw WebImageError.badImageData(reason: "WebP animation has no frames") }
        if oneFrameAtATime {
            try limits.check(framesDecodedOneAtATime: frames, of: size)
        } else {
            try limits.check(frames: framesToCheck(frames), of: size)
        }

        // 2. The animation decoder (allocates two canvases).
        var options = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&options) != 0 else {
            throw WebImageError.unsupportedFormat(.webp, reason: "libwebp demux ABI mismatch")
        }
        options.color_mode = MODE_RGBA
        options.use_threads = 0
        guard let decoder = WebPAnimDecoderNew(&webPData, &options) else {
            throw WebImageError.badImageData(reason: "WebP animation: the decoder rejected the file")
        }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0,
            Int(info.canvas_width) == width, Int(info.canvas_height) == height
        else {
            WebPAnimDecoderDelete(decoder)
            throw WebImageError.badImageData(reason: "WebP animation: inconsistent header")
        }
        self.decoder = decoder
        canvasSize = size
        frameCount = frames
        loopCount = loops

        // Durations from the frame table (the decoder's timestamps are their running sums).
        var durations: [Int] = []
        durations.reserveCapacity(frames)
        if let demuxer = WebPAnimDecoderGetDemuxer(decoder) {
            var iterator = WebPIterator()
            for index in 1...frames {
                if WebPDemuxGetFrame(demuxer, Int32(index), &iterator) != 0 {
                    durations.append(Int(iterator.duration))
                    WebPDemuxReleaseIterator(&iterator)
                } else {
                    durations.append(0)
                }
            }
        }
        while durations.count < frames { durations.append(0) }
        durationsInMilliseconds = durations
    }

    deinit {
        WebPAnimDecoderDelete(decoder)
    }

    /// Display duration of frame `index` in seconds, clamped per ``/WebImageCore/FrameDelay``.
    func duration(ofFrame index: Int) -> Double {
        guard durationsInMilliseconds.indices.contains(index) else { return FrameDelay.replacement }
        return WebPSupport.duration(milliseconds: durationsInMilliseconds[index])
    }

    /// Goes back to the first frame.
    func rewind() {
        WebPAnimDecoderReset(decoder)
        nextIndex = 0
    }

    /// Decodes the next frame onto the canvas without copying it out.
    func skip() throws {
        _ = try advance()
    }

    /// Decodes the next frame and returns its composited canvas (sized `outputSize`, resampled
    /// when it differs from the canvas) and its end timestamp in milliseconds.
    func next(outputSize: PixelSize) throws -> (pixels: PixelBuffer, timestamp: Int) {
        let (canvas, timestamp) = try advance()
        let byteCount = canvasSize.width * canvasSize.height * PixelBuffer.bytesPerPixel
        let full = PixelBuffer.make(width: canvasSize.width, height: canvasSize.height) { out in
            out.baseAddress?.update(from: canvas, count: byteCount)
        }
        let pixels = outputSize == canvasSize ? full : full.thumbnail(to: outputSize)
        return (pixels, timestamp)
    }

    /// Decodes the next frame; returns libwebp's canvas (valid until the next call) and the
    /// frame's end timestamp in milliseconds.
    private func advance() throws -> (UnsafeMutablePointer<UInt8>, Int) {
        guard nextIndex < frameCount, WebPAnimDecoderHasMoreFrames(decoder) != 0 else {
            throw WebImageError.badImageData(reason: "WebP animation: no frame \(nextIndex)")
        }
        var canvas: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else {
            throw WebImageError.badImageData(reason: "WebP animation: frame \(nextIndex) is corrupt")
        }
        nextIndex += 1
        return (canvas, Int(timestamp))
    }
}
