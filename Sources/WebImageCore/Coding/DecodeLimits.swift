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
    /// The decoded-bytes budget of one image (SPEC R-3): what a full decode will allocate for
    /// its pixels, every frame and the composited canvas of an animation included, at 4 bytes a
    /// pixel. Checked from the header before pixel memory is allocated, and again while frames
    /// are produced. Decoders that shrink while decoding (JPEG, WebP stills) count the size they
    /// allocate, so a thumbnail of a large photo stays within it. Default 256 MiB: an 8192×8192 still, or 1,024 frames of 256×256; the
    /// largest image of the project's corpus needs 92 MiB. Lazy frame access
    /// (``AnimatedImageSource``) holds one or two canvases and is checked per canvas only; so
    /// does frame-by-frame conversion
    /// (``CodersManager/convertFrameByFrame(_:to:decodeOptions:encodeOptions:transformer:key:)``).
    public var maxDecodedBytes: Int = 256 * 1024 * 1024
    /// The decompression-ratio guard (SPEC R-3): when set, a decode whose decoded bytes exceed
    /// this many times the encoded bytes is refused before pixel memory is allocated. Off
    /// (`nil`) by default, because a flat-coloured image legitimately compresses a thousand
    /// times or more; a service whose inputs come from strangers may switch it on (e.g. 1,000).
    public var maxDecodedToEncodedRatio: Double?

    public init() {}

    /// The default limits.
    public static let `default` = DecodeLimits()

    /// Throws `imageTooLarge` when a canvas of `size` exceeds ``maxPixelCount`` or its pixels
    /// ``maxDecodedBytes``, and
    /// `badImageData` when a dimension is zero or negative.
    public func check(canvas size: PixelSize) throws {
        try check(canvas: size, allocating: size)
    }

    /// ``check(canvas:)`` for a decoder that shrinks while decoding (JPEG's DCT scaling, WebP's
    /// scaled decode): the pixel limit applies to the canvas as stored, the decoded-bytes budget
    /// to the `allocated` size the decoder really produces.
    public func check(canvas size: PixelSize, allocating allocated: PixelSize) throws {
        guard size.width > 0, size.height > 0 else {
            throw WebImageError.badImageData(reason: "invalid dimensions \(size)")
        }
        guard size.pixelCount <= maxPixelCount else {
            throw WebImageError.imageTooLarge(
                reason: "\(size) is \(size.pixelCount) pixels; the limit is \(maxPixelCount)")
        }
        try checkBudget(frames: 1, of: allocated)
    }

    /// Throws `imageTooLarge` when decoding `frames` frames of `size` (plus `extraCanvases`
    /// composited canvases) needs more than ``maxDecodedBytes``.
    public func checkBudget(frames: Int, of size: PixelSize, extraCanvases: Int = 0) throws {
        let bytes = Self.decodedBytes(frames: max(frames, 0) + max(extraCanvases, 0), of: size)
        guard bytes <= maxDecodedBytes else {
            let what = frames == 1 && extraCanvases == 0 ? "a \(size) image" : "\(frames) frames of \(size)"
            throw WebImageError.imageTooLarge(
                reason: "decoding \(what) needs \(Self.formatBytes(bytes)); "
                    + "the decoded-bytes budget is \(Self.formatBytes(maxDecodedBytes))")
        }
    }

    /// Throws `imageTooLarge` when ``maxDecodedToEncodedRatio`` is set and `decodedBytes` exceed
    /// that many times `encodedBytes`.
    public func checkRatio(decodedBytes: Int, encodedBytes: Int) throws {
        guard let ratio = maxDecodedToEncodedRatio, ratio.isFinite, ratio > 0 else { return }
        let actual = Double(decodedBytes) / Double(max(encodedBytes, 1))
        guard actual <= ratio else {
            throw WebImageError.imageTooLarge(
                reason: "\(encodedBytes) encoded bytes would decode to \(Self.formatBytes(decodedBytes)), "
                    + "\(Int(actual.rounded())) times as much; the decompression ratio limit is \(Int(ratio.rounded()))")
        }
    }

    /// The bytes `frames` RGBA buffers of `size` take (saturating at `Int.max`).
    public static func decodedBytes(frames: Int, of size: PixelSize) -> Int {
        let (perFrame, o1) = size.pixelCount.multipliedReportingOverflow(by: 4)
        let (total, o2) = perFrame.multipliedReportingOverflow(by: max(frames, 0))
        return o1 || o2 ? Int.max : total
    }

    /// `1.0 GiB`, `353 MiB`, `12 KiB`, `800 bytes`.
    public static func formatBytes(_ bytes: Int) -> String {
        let value = Double(bytes)
        if value >= 1024 * 1024 * 1024 { return "\((value / 1_073_741_824 * 10).rounded() / 10) GiB" }
        if value >= 1024 * 1024 { return "\(Int((value / 1_048_576).rounded())) MiB" }
        if value >= 1024 { return "\(Int((value / 1024).rounded())) KiB" }
        return "\(bytes) bytes"
    }

    /// Throws `imageTooLarge` when an animation read one frame at a time (through an
    /// ``AnimatedImageSource``) has more than ``maxFrameCount`` frames, or when one canvas of
    /// `size` exceeds ``maxPixelCount`` or ``maxDecodedBytes`` (SPEC R-3). Such a reader holds one
    /// or two canvases whatever the frame count, so the limits of a whole decode
    /// (``maxTotalAnimationPixels``, the budget for every frame) do not apply: a 4,096-frame
    /// animation of 256×256 opens, a single 9400×9400 frame does not.
    public func check(framesDecodedOneAtATime frames: Int, of size: PixelSize) throws {
        try check(canvas: size)
        guard frames <= maxFrameCount else {
            throw WebImageError.imageTooLarge(reason: "\(frames) frames; the limit is \(maxFrameCount)")
        }
    }

    /// Throws `imageTooLarge` when an animation of `frames` frames of `size` exceeds
    /// ``maxFrameCount``, ``maxTotalAnimationPixels`` or ``maxDecodedBytes``.
    public func check(frames: Int, of size: PixelSize) throws {
        guard frames <= maxFrameCount else {
            throw WebImageError.imageTooLarge(reason: "\(frames) frames; the limit is \(maxFrameCount)")
        }
        let (total, overflow) = size.pixelCount.multipliedReportingOverflow(by: max(frames, 1))
        guard !overflow, total <= maxTotalAnimationPixels else {
            throw WebImageError.imageTooLarge(
                reason: "\(frames) frames of \(size); the animation limit is \(maxTotalAnimationPixels) pixels")
        }
        try checkBudget(frames: frames, of: size)
    }
}
