import Foundation

/// An encoder that takes the frames of one image one at a time (SPEC C-5, R-3): encoding a
/// 4,096-frame animation holds one or two frames in memory, not all of them.
///
/// Made by ``AnimatedImageEncoding/makeAnimatedEncoder(format:frameSize:loopCount:hasAlpha:options:)``.
/// Call ``add(_:duration:)`` for every frame, in display order, then ``finish()`` once. One
/// frame gives a still image; two or more an animation (where the format has animations).
/// Single owner, not thread-safe (as ``AnimatedImageSource``).
public protocol AnimatedImageEncoder: AnyObject {
    /// Adds the next frame: upright RGBA pixels of the frame size the encoder was made for,
    /// shown for `duration` seconds.
    /// - Throws: ``WebImageError/encodingFailed(reason:)`` — a frame of another size, a frame
    ///   after ``finish()``, or the codec library failed.
    func add(_ pixels: PixelBuffer, duration: Double) throws
    /// Ends the image and returns the encoded file.
    /// - Throws: ``WebImageError/encodingFailed(reason:)`` when no frame was added or the codec
    ///   library failed.
    func finish() throws -> Data
}

/// An encoder that can write an image frame by frame (SPEC C-5, R-3). Its whole-image
/// ``ImageEncoding/encode(_:format:options:)`` is the same encoder fed every frame, so both
/// paths give the same file.
public protocol AnimatedImageEncoding: ImageEncoding {
    /// A frame-by-frame encoder for `format`.
    ///
    /// The options apply as in ``ImageEncoding/encode(_:format:options:)``: quality and
    /// lossless; ``EncodeOptions/maxPixelSize`` fits every frame (aspect ratio kept);
    /// without ``EncodeOptions/keepAnimation`` only the first frame is written and later frames
    /// are ignored. ``EncodeOptions/maxFileSize`` is **not** applied: meeting it means encoding
    /// again at other qualities or sizes, which needs every frame; the whole-image encode does
    /// that.
    /// - Parameters:
    ///   - format: the format to write (``ImageFormat/gif``, ``ImageFormat/webp``, …).
    ///   - frameSize: the size of the frames that will be added.
    ///   - loopCount: plays of the animation (0 = forever), where the format stores it.
    ///   - hasAlpha: whether frames may have transparent pixels. Formats that choose one pixel
    ///     layout for the whole file (APNG, AVIF) decide it from this before the first frame;
    ///     `false` drops alpha.
    ///   - options: quality, lossless, size and animation options, as described above.
    /// - Throws: `unsupportedFormat` for a format this coder does not write; `encodingFailed`
    ///   for a size the format cannot hold.
    func makeAnimatedEncoder(
        format: ImageFormat, frameSize: PixelSize, loopCount: Int, hasAlpha: Bool, options: EncodeOptions
    ) throws -> any AnimatedImageEncoder
}
