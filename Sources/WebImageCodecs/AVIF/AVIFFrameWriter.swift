import CAVIF
import Foundation
import WebImageCore

/// AVIF frames one at a time (an ``AnimationFrameWriter``): a still image with
/// `avifEncoderWrite`, an image sequence with `avifEncoderAddImage` per frame (libavif keeps the
/// encoded frames, not the caller's pixels) and `avifEncoderFinish`.
///
/// One layout for the whole file: an alpha plane unless the writer was made `opaque`. Frame
/// durations are clamped to 1 ms … about 49 days.
final class AVIFFrameWriter: AnimationFrameWriter {
    private let quality: Double
    private let lossless: Bool
    private let opaque: Bool
    /// The ICC profile every frame carries, when the image keeps one.
    private let iccProfile: Data?
    /// Depth and code points for RGBA16 frames (10 bits, no CICP when `nil`).
    var highBitDepth: AVIFHighBitDepth?
    private var sequence: UnsafeMutablePointer<avifEncoder>?

    init(quality: Double, lossless: Bool, opaque: Bool, iccProfile: Data? = nil) {
        self.quality = quality
        self.lossless = lossless
        self.opaque = opaque
        self.iccProfile = iccProfile
    }

    deinit {
        if let sequence { avifEncoderDestroy(sequence) }
    }

    func encodeStill(_ pixels: PixelBuffer) throws -> Data {
        let encoder = try AVIFEncoding.makeEncoder(quality: quality, lossless: lossless)
        defer { avifEncoderDestroy(encoder) }
        let frame = try AVIFEncoding.yuvImage(
            pixels, lossless: lossless, opaque: opaque, iccProfile: iccProfile, highBitDepth: highBitDepth)
        defer { avifImageDestroy(frame) }
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        try AVIFEncoding.check(avifEncoderWrite(encoder, frame, &output))
        return try Self.bytes(of: output)
    }

    func addAnimationFrame(_ pixels: PixelBuffer, duration: Double) throws {
        if sequence == nil { sequence = try AVIFEncoding.makeEncoder(quality: quality, lossless: lossless) }
        guard let sequence else { return }
        let yuv = try AVIFEncoding.yuvImage(pixels, lossless: lossless, opaque: opaque, iccProfile: iccProfile)
        defer { avifImageDestroy(yuv) }
        // Caller-built frames may carry any Double: clamp to 1 ms … ~49 days.
        let requested = duration.isFinite ? (duration * 1000).rounded() : 100
        let milliseconds = UInt64(min(max(1, requested), Double(UInt32.max)))
        try AVIFEncoding.check(
            avifEncoderAddImage(sequence, yuv, milliseconds, avifAddImageFlags(AVIF_ADD_IMAGE_FLAG_NONE.rawValue)))
    }

    func finishAnimation() throws -> Data {
        guard let sequence else { throw WebImageError.encodingFailed(reason: "AVIF: no frames") }
        var output = avifRWData()
        defer { avifRWDataFree(&output) }
        try AVIFEncoding.check(avifEncoderFinish(sequence, &output))
        return try Self.bytes(of: output)
    }

    private static func bytes(of output: avifRWData) throws -> Data {
        guard let bytes = output.data, output.size > 0 else {
            throw WebImageError.encodingFailed(reason: "AVIF: the encoder wrote nothing")
        }
        return Data(bytes: bytes, count: output.size)
    }
}

extension AVIFCoder: AnimatedImageEncoding {
    /// An AVIF encoder that hands each frame to libavif as it is added (an image sequence for
    /// two or more frames, a still image for one). The file has an alpha plane when `hasAlpha`:
    /// the whole-image encode decides this from the pixels, which a frame-by-frame encoder
    /// cannot know in advance. Image sequences loop forever (libavif 0.11 writes no repetition
    /// count).
    /// - Throws: `unsupportedFormat` for another format.
    public func makeAnimatedEncoder(
        format: ImageFormat, frameSize: PixelSize, loopCount: Int, hasAlpha: Bool, options: EncodeOptions
    ) throws -> any AnimatedImageEncoder {
        guard format == .avif else { throw WebImageError.unsupportedFormat(format, reason: "AVIFCoder encodes AVIF only") }
        let output = FrameByFrameEncoder.outputSize(for: frameSize, options: options)
        let writer = AVIFFrameWriter(quality: options.clampedQuality, lossless: options.lossless, opaque: !hasAlpha)
        return FrameByFrameEncoder(
            writer: writer, frameSize: frameSize, outputSize: output, keepsAnimation: options.keepAnimation)
    }
}
