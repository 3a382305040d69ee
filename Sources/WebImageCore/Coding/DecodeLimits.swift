/// Limits every decoder checks from the file's header **before** it allocates pixel memory
/// (SPEC C-6). Exceeding one throws ``WebImageError/imageTooLarge(reason:)``.
public struct DecodeLimits: Sendable, Hashable {
    /// Maximum pixels of one frame (canvas). The default, 89,478,485, is Pillow's
    /// `MAX_IMAGE_PIXELS` (a quarter GiB of 24-bit pixels ÷ 3): about a 9459×9459 image, or
    /// 342 MiB of RGBA.
    public var maxPixelCount: Int = 89_478_485
    /// Maximum frames an animation may have.
    public var maxFrameCount: Int = 4_096
    /// Maximum pixels of all frames together (canvas pixels × frame count): 256 Mpx, 1 GiB RGBA.
    public var maxTotalAnimationPixels: Int = 268_435_456
    /// Maximum size of one PNG chunk (and cap of all cached ancillary chunks) in bytes.
    public var maxChunkBytes: Int = 8 * 1024 * 1024

    public init() {}

    /// The default limits.
    public static let `default` = DecodeLimits()

    /// Throws `imageTooLarge` when a canvas of `size` exceeds ``maxPixelCount``, and
    /// `badImageData` when a dimension is zero or negative.
    public func check(canvas size: PixelSize) throws {
        guard size.width > 0, size.height > 0 else {
            throw WebImageError.badImageData(reason: "invalid dimensions \(size)")
        }
        guard size.pixelCount <= maxPixelCount else {
            throw WebImageError.imageTooLarge(
                reason: "\(size) is \(size.pixelCount) pixels; the limit is \(maxPixelCount)")
        }
    }

    /// Throws `imageTooLarge` when an animation of `frames` frames of `size` exceeds
    /// ``maxFrameCount`` or ``maxTotalAnimationPixels``.
    public func check(frames: Int, of size: PixelSize) throws {
        guard frames <= maxFrameCount else {
            throw WebImageError.imageTooLarge(reason: "\(frames) frames; the limit is \(maxFrameCount)")
        }
        let (total, overflow) = size.pixelCount.multipliedReportingOverflow(by: max(frames, 1))
        guard !overflow, total <= maxTotalAnimationPixels else {
            throw WebImageError.imageTooLarge(
                reason: "\(frames) frames of \(size); the animation limit is \(maxTotalAnimationPixels) pixels")
        }
    }
}
