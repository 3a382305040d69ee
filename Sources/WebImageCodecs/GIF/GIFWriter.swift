import CGIF
import Foundation
import WebImageCore

/// The bytes giflib's output callback appends to.
final class GIFOutputBuffer {
    var bytes: [UInt8] = []
}

/// giflib's output callback: appends to the ``GIFOutputBuffer`` in `UserData`.
private func gifWrite(
    _ file: UnsafeMutablePointer<GifFileType>?, _ data: UnsafePointer<GifByteType>?, _ length: Int32
) -> Int32 {
    guard let file, let user = file.pointee.UserData, length >= 0 else { return 0 }
    guard let data, length > 0 else { return length }
    let output = Unmanaged<GIFOutputBuffer>.fromOpaque(user).takeUnretainedValue()
    output.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
    return length
}

/// Writes frames as a GIF89a with giflib, one frame at a time (an ``AnimationFrameWriter``):
/// each frame with its own (local) palette from `GIFQuantizer`. A frame is written when the
/// next one arrives (its disposal depends on it); only the encoded bytes, the frame waiting and
/// the one before it are kept.
///
/// - Animations get a NETSCAPE2.0 loop extension with the image's loop count (0 = forever),
///   except for loop count 1, which is written as no extension (play once) so that browsers
///   and this decoder agree.
/// - Every animation frame has a Graphic Control Extension: its duration in centiseconds
///   (rounded, at most 65535), its disposal and the transparent index when the frame has one.
///   A still image gets a GCE only when it has transparency.
/// - Only what changed is stored: a frame after the first covers the rectangle of pixels that
///   differ from the frame before it, drawn over it ("do not dispose"). GIF cannot make a
///   pixel transparent by drawing, so when some pixel turns transparent in the next frame the
///   frame is written as the whole canvas with "restore to background", and the next one as
///   the whole canvas too. The first and last frames cover the canvas; the last is restored
///   to background, so a player that does not clear the canvas when it loops still starts clean.
final class GIFFrameWriter: AnimationFrameWriter {
    private let width: Int
    private let height: Int
    private let loopCount: Int
    private let maxColors: Int
    /// The animation being written (opened by the first ``addAnimationFrame(_:duration:)``).
    private var session: Session?
    /// The frame added last, not yet written, and the rectangle it covers unless it is
    /// restored to background.
    private var pending: (pixels: PixelBuffer, duration: Double, region: PixelRect)?

    /// - Throws: `encodingFailed` when a side exceeds 65535 pixels.
    init(size: PixelSize, loopCount: Int, maxColors: Int) throws {
        guard size.width <= 65_535, size.height <= 65_535 else {
            throw WebImageError.encodingFailed(reason: "GIF: \(size) exceeds 65535 pixels per side")
        }
        width = size.width
        height = size.height
        self.loopCount = loopCount
        self.maxColors = maxColors
    }

    func encodeStill(_ pixels: PixelBuffer) throws -> Data {
        let still = try Session(width: width, height: height, loopCount: nil)
        try still.write(
            pixels, region: canvas, duration: nil, disposal: DISPOSAL_UNSPECIFIED, maxColors: maxColors)
        return try still.close()
    }

    private var canvas: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }

    func addAnimationFrame(_ pixels: PixelBuffer, duration: Double) throws {
        if session == nil { session = try Session(width: width, height: height, loopCount: loopCount) }
        guard let session else { return }
        var region = canvas
        if let previous = pending {
            let changed = FrameDifference.changedRegion(from: previous.pixels, to: pixels)
            let clears = FrameDifference.turnsTransparent(
                from: previous.pixels, to: pixels, in: changed, threshold: GIFQuantizer.alphaThreshold)
            try session.write(
                previous.pixels, region: clears ? canvas : previous.region, duration: previous.duration,
                disposal: clears ? DISPOSE_BACKGROUND : DISPOSE_DO_NOT, maxColors: maxColors)
            if !clears { region = changed }
        }
        pending = (pixels, duration, region)
    }

    func finishAnimation() throws -> Data {
        guard let session, let last = pending else { throw WebImageError.encodingFailed(reason: "GIF: no frames") }
        try session.write(last.pixels, region: canvas, duration: last.duration, disposal: DISPOSE_BACKGROUND, maxColors: maxColors)
        self.session = nil
        pending = nil
        return try session.close()
    }

    /// One giflib encoder handle and its output.
    private final class Session {
        private let file: UnsafeMutablePointer<GifFileType>
        private let output = GIFOutputBuffer()
        private let width: Int
        private let height: Int
        private let animated: Bool
        private var closed = false

        /// Opens the file and writes the screen descriptor (and, for an animation — `loopCount`
        /// not `nil` —, the loop extension).
        init(width: Int, height: Int, loopCount: Int?) throws {
            var error: Int32 = 0
            guard let file = EGifOpen(Unmanaged.passUnretained(output).toOpaque(), gifWrite, &error) else {
                throw WebImageError.encodingFailed(reason: "GIF: \(GIFFileReader.message(error))")
            }
            self.file = file
            self.width = width
            self.height = height
            animated = loopCount != nil
            EGifSetGifVersion(file, true)
            try check(EGifPutScreenDesc(file, Int32(width), Int32(height), 8, 0, nil), "screen descriptor")
            if let loopCount, loopCount != 1 {
                try writeLoopExtension(loopCount: min(65_535, max(0, loopCount)))
            }
        }

        deinit {
            if !closed {
                var error: Int32 = 0
                EGifCloseFile(file, &error)
            }
        }

        private func check(_ result: Int32, _ step: String) throws {
            guard result == GIF_OK else {
                throw WebImageError.encodingFailed(reason: "GIF: \(step): \(GIFFileReader.message(file.pointee.Error))")
            }
        }

        /// Quantises and writes the `region` of a frame of the canvas size (`duration` `nil` for
        /// a still image).
        func write(_ pixels: PixelBuffer, region: PixelRect, duration: Double?, disposal: Int32, maxColors: Int) throws {
            let quantized = GIFQuantizer.quantize(FrameDifference.crop(pixels, to: region), maxColors: maxColors)
            if animated || quantized.transparentIndex != nil {
                let delay = duration.map { min(65_535, max(0, Int(($0 * 100).rounded()))) } ?? 0
                var control = GraphicsControlBlock(
                    DisposalMode: animated ? disposal : DISPOSAL_UNSPECIFIED, UserInputFlag: false,
                    DelayTime: Int32(delay), TransparentColor: Int32(quantized.transparentIndex ?? -1))
                var extensionBytes = [GifByteType](repeating: 0, count: 4)
                let length = EGifGCBToExtension(&control, &extensionBytes)
                try check(EGifPutExtension(file, GRAPHICS_EXT_FUNC_CODE, Int32(length), extensionBytes), "control extension")
            }
            try writeImage(quantized, region: region)
        }

        /// Ends the file and returns its bytes.
        func close() throws -> Data {
            closed = true
            var error: Int32 = 0
            guard EGifCloseFile(file, &error) == GIF_OK else {
                throw WebImageError.encodingFailed(reason: "GIF: close: \(GIFFileReader.message(error))")
            }
            return Data(output.bytes)
        }

        private func writeLoopExtension(loopCount: Int) throws {
            try check(EGifPutExtensionLeader(file, APPLICATION_EXT_FUNC_CODE), "loop extension")
            try check(EGifPutExtensionBlock(file, 11, Array("NETSCAPE2.0".utf8)), "loop extension")
            let value: [UInt8] = [1, UInt8(loopCount & 0xFF), UInt8(loopCount >> 8)]
            try check(EGifPutExtensionBlock(file, 3, value), "loop extension")
            try check(EGifPutExtensionTrailer(file), "loop extension")
        }

        private func writeImage(_ quantized: GIFQuantizer.Result, region: PixelRect) throws {
            // giflib wants a power-of-two colour map of at least 2 entries.
            var size = 2
            while size < quantized.colorCount { size *= 2 }
            var colors = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: size)
            for i in 0..<quantized.colorCount {
                colors[i] = GifColorType(
                    Red: quantized.colors[i * 3], Green: quantized.colors[i * 3 + 1], Blue: quantized.colors[i * 3 + 2])
            }
            guard let map = GifMakeMapObject(Int32(size), colors) else {
                throw WebImageError.encodingFailed(reason: "GIF: cannot make a colour map of \(size) entries")
            }
            defer { GifFreeMapObject(map) }
            try check(
                EGifPutImageDesc(
                    file, Int32(region.x), Int32(region.y), Int32(region.width), Int32(region.height), false, map),
                "image descriptor")
            var indices = quantized.indices
            let width = region.width
            try indices.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                for y in 0..<region.height {
                    try check(EGifPutLine(file, base + y * width, Int32(width)), "image data")
                }
            }
        }
    }
}
