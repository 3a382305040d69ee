/// A decoded image: the value the whole pipeline shares (caches, transformers, callers).
///
/// `Image` is immutable and a class, so passing it around never copies pixels and the memory
/// cache's weak layer can find an image again while someone still holds it.
///
/// - Pixel layout: every frame is a ``PixelBuffer`` (RGBA8, straight alpha, canvas size).
/// - Size: ``width``/``height`` are pixels; the size in points is pixels divided by ``scale``.
/// - Orientation: decoders apply EXIF orientation by default and report `.up`; with
///   ``DecodeOptions/applyOrientation`` off, pixels are as stored and ``orientation`` says how
///   to show them.
/// - Animation: ``frames`` holds every composited frame with its duration; ``loopCount`` 0
///   means loop forever.
public final class Image: Sendable {
    /// The frames, at least one. A still image has exactly one.
    public let frames: [ImageFrame]
    /// Points-to-pixels factor: 1, 2 (`@2x`) or 3 (`@3x`), or any positive value.
    public let scale: Double
    /// How the pixels must be oriented for display (`.up` once applied).
    public let orientation: ImageOrientation
    /// The format the image was decoded from (`.unknown` for images made in memory).
    public let format: ImageFormat
    /// How many times an animation plays; 0 means forever. 0 for still images.
    public let loopCount: Int
    /// Whether the source had an alpha channel (or transparency) that may be used.
    public let hasAlpha: Bool
    /// Bytes of all decoded frames, each shared buffer counted once. Caches use it as the cost.
    public let cost: Int
    /// The colour description of the pixel values, `nil` for sRGB (untagged). Decoders convert
    /// to sRGB by default and leave this `nil`; with ``ColorManagement/preserve`` it is the
    /// source's profile, which the JPEG, PNG and WebP encoders embed.
    public let colorProfile: ColorProfile?
    /// The gain map that turns this (SDR) image into its HDR rendition (SPEC H-2), `nil` when
    /// there is none or it was dropped. Geometry steps carry it along; steps that change pixel
    /// values leave it as it is. Its pixels count in ``cost``.
    public let gainMap: GainMap?
    /// Why the source's gain map was dropped (malformed metadata, limits…), `nil` when it was
    /// kept or there was none.
    public let gainMapIssue: GainMapIssue?

    /// Creates an image from frames. `frames` must not be empty and all frames must have the
    /// same size.
    public init(
        frames: [ImageFrame],
        scale: Double = 1,
        orientation: ImageOrientation = .up,
        format: ImageFormat = .unknown,
        loopCount: Int = 0,
        hasAlpha: Bool = true,
        colorProfile: ColorProfile? = nil,
        gainMap: GainMap?,
        gainMapIssue: GainMapIssue? = nil
    ) {
        precondition(!frames.isEmpty, "an Image needs at least one frame")
        precondition(scale > 0, "scale must be positive")
        self.frames = frames
        self.scale = scale
        self.orientation = orientation
        self.format = format
        self.loopCount = frames.count > 1 ? max(0, loopCount) : 0
        self.hasAlpha = hasAlpha
        self.colorProfile = colorProfile
        self.gainMap = gainMap
        self.gainMapIssue = gainMapIssue
        var seen = Set<ObjectIdentifier>()
        var total = 0
        for frame in frames where seen.insert(ObjectIdentifier(frame.pixels)).inserted {
            total += frame.pixels.byteCount
        }
        self.cost = total + (gainMap?.pixels.byteCount ?? 0)
    }

    /// Creates an image from frames, without a gain map. `frames` must not be empty and all
    /// frames must have the same size.
    public convenience init(
        frames: [ImageFrame],
        scale: Double = 1,
        orientation: ImageOrientation = .up,
        format: ImageFormat = .unknown,
        loopCount: Int = 0,
        hasAlpha: Bool = true,
        colorProfile: ColorProfile? = nil
    ) {
        self.init(
            frames: frames, scale: scale, orientation: orientation, format: format, loopCount: loopCount,
            hasAlpha: hasAlpha, colorProfile: colorProfile, gainMap: nil)
    }

    /// A still image from one pixel buffer.
    public convenience init(
        pixels: PixelBuffer,
        scale: Double = 1,
        orientation: ImageOrientation = .up,
        format: ImageFormat = .unknown,
        hasAlpha: Bool = true,
        colorProfile: ColorProfile? = nil
    ) {
        self.init(
            frames: [ImageFrame(pixels: pixels)], scale: scale, orientation: orientation,
            format: format, loopCount: 0, hasAlpha: hasAlpha, colorProfile: colorProfile, gainMap: nil)
    }

    /// A still image from one pixel buffer, with a gain map.
    public convenience init(
        pixels: PixelBuffer,
        scale: Double = 1,
        orientation: ImageOrientation = .up,
        format: ImageFormat = .unknown,
        hasAlpha: Bool = true,
        colorProfile: ColorProfile? = nil,
        gainMap: GainMap?
    ) {
        self.init(
            frames: [ImageFrame(pixels: pixels)], scale: scale, orientation: orientation,
            format: format, loopCount: 0, hasAlpha: hasAlpha, colorProfile: colorProfile, gainMap: gainMap)
    }

    /// The first frame's pixels (the poster frame of an animation).
    public var pixels: PixelBuffer { frames[0].pixels }
    /// Width in pixels.
    public var width: Int { frames[0].pixels.width }
    /// Height in pixels.
    public var height: Int { frames[0].pixels.height }
    /// Size in pixels.
    public var pixelSize: PixelSize { PixelSize(width: width, height: height) }
    /// Whether the image has more than one frame.
    public var isAnimated: Bool { frames.count > 1 }
    /// Total duration of one loop of the animation, in seconds.
    public var duration: Double { frames.reduce(0) { $0 + $1.duration } }

    /// A copy of this image's description with other frames (e.g. after a transform), keeping
    /// scale, orientation, format, loop count, alpha and colour profile unless given. The gain
    /// map is kept when the size and orientation stay (a step that changes pixel values); a
    /// geometry step carries it itself (``carryingGainMap(from:_:)``), else it is dropped.
    public func replacing(
        frames: [ImageFrame],
        scale: Double? = nil,
        orientation: ImageOrientation? = nil,
        format: ImageFormat? = nil,
        hasAlpha: Bool? = nil
    ) -> Image {
        let newOrientation = orientation ?? self.orientation
        let keepsGeometry = frames.first.map { $0.pixels.width == width && $0.pixels.height == height } ?? false
            && newOrientation == self.orientation
        return Image(
            frames: frames, scale: scale ?? self.scale, orientation: newOrientation,
            format: format ?? self.format, loopCount: loopCount, hasAlpha: hasAlpha ?? self.hasAlpha,
            colorProfile: colorProfile, gainMap: keepsGeometry ? gainMap : nil, gainMapIssue: gainMapIssue)
    }

    /// A copy of this image with the same frames and description but another colour profile
    /// (`nil`: sRGB).
    public func replacing(colorProfile: ColorProfile?) -> Image {
        Image(
            frames: frames, scale: scale, orientation: orientation, format: format, loopCount: loopCount,
            hasAlpha: hasAlpha, colorProfile: colorProfile, gainMap: gainMap, gainMapIssue: gainMapIssue)
    }
}

extension Image {
    /// The scale a file name implies: `name@2x.png` → 2, `name@3x.jpg` → 3, otherwise `nil`.
    public static func scale(fromFileName name: String) -> Double? {
        var stem = Substring(name)
        if let slash = stem.lastIndex(of: "/") { stem = stem[stem.index(after: slash)...] }
        if let dot = stem.lastIndex(of: ".") { stem = stem[..<dot] }
        guard let at = stem.lastIndex(of: "@") else { return nil }
        let suffix = stem[stem.index(after: at)...]
        guard suffix.count >= 2, suffix.last == "x", let value = Double(suffix.dropLast()), value > 0 else {
            return nil
        }
        return value
    }
}
