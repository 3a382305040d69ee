/// What an image's header says, read without decoding pixels (SPEC I-4). Limits and thumbnail
/// planning use it; `webimage info` prints it.
public struct ImageMetadata: Sendable, Hashable {
    /// The format, sniffed from the bytes.
    public var format: ImageFormat
    /// Pixel size as stored (before orientation is applied).
    public var pixelSize: PixelSize
    /// Number of frames, or `nil` when only a full scan could tell.
    public var frameCount: Int?
    /// Whether the image is an animation (more than one frame).
    public var isAnimated: Bool
    /// Loop count of an animation (0 = forever), `nil` for still images or when unknown.
    public var loopCount: Int?
    /// EXIF orientation (`.up` when absent).
    public var orientation: ImageOrientation
    /// Whether the image has an alpha channel or transparency, `nil` when unknown.
    public var hasAlpha: Bool?
    /// The colour description the file carries (G-1), `nil` for untagged (sRGB) or when
    /// the reader does not look for it.
    public var colorProfile: ColorProfile?
    /// The gain map the file carries (SPEC H-2), `nil` when none or when the reader does not
    /// look for one (JPEG does).
    public var gainMap: GainMapSummary?
    /// Why a gain map the file signals cannot be used, `nil` otherwise.
    public var gainMapIssue: GainMapIssue?
    /// Bits per colour channel as stored (8 for most files, 10 or 12 for HDR AVIF and HEIC, 16
    /// for 16-bit PNG), `nil` when the reader does not say (SPEC H-5).
    public var bitDepth: Int?

    public init(
        format: ImageFormat,
        pixelSize: PixelSize,
        frameCount: Int? = 1,
        isAnimated: Bool = false,
        loopCount: Int? = nil,
        orientation: ImageOrientation = .up,
        hasAlpha: Bool? = nil,
        colorProfile: ColorProfile? = nil
    ) {
        self.format = format
        self.pixelSize = pixelSize
        self.frameCount = frameCount
        self.isAnimated = isAnimated
        self.loopCount = loopCount
        self.orientation = orientation
        self.hasAlpha = hasAlpha
        self.colorProfile = colorProfile
    }

    /// Size as displayed: width and height swapped for orientations 5–8.
    public var displaySize: PixelSize {
        orientation.swapsDimensions ? PixelSize(width: pixelSize.height, height: pixelSize.width) : pixelSize
    }
}
