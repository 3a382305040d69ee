import WebImage

/// How the source is resized to the requested size (imgproxy's `resizing_type`).
public enum ResizingType: String, Sendable, Hashable, CaseIterable {
    /// Keep the aspect ratio and fit inside the size.
    case fit
    /// Keep the aspect ratio, cover the size and crop what projects (by gravity).
    case fill
    /// Like `fill`, but never enlarges: a result smaller than the size is cropped to the
    /// requested aspect ratio instead.
    case fillDown = "fill-down"
    /// Stretch to exactly the size.
    case force
    /// `fill` when source and requested size have the same orientation, else `fit`.
    case auto
}

/// Where the kept part of an image lies when it is cropped or extended (imgproxy's `gravity`).
public enum Gravity: Sendable, Hashable {
    /// One of the nine anchors, with offsets: values ≥ 1 are pixels, smaller ones a fraction
    /// of the image's size.
    case anchor(Anchor, xOffset: Double, yOffset: Double)
    /// "Smart" gravity (`sm`): the most detailed region, by local contrast.
    case smart
    /// Focus point (`fp:x:y`): 0…1 fractions of the image giving the result's center.
    case focusPoint(x: Double, y: Double)

    /// The nine anchors and their imgproxy names.
    public enum Anchor: String, Sendable, Hashable, CaseIterable {
        case north = "no", south = "so", east = "ea", west = "we"
        case northEast = "noea", northWest = "nowe", southEast = "soea", southWest = "sowe"
        case center = "ce"
    }

    /// `ce:0:0`, the default.
    public static let center = Gravity.anchor(.center, xOffset: 0, yOffset: 0)
}

/// An 8-bit RGB color (`background`, `trim` color).
public struct RGBColor: Sendable, Hashable, CustomStringConvertible {
    /// Red, green, blue.
    public var red, green, blue: UInt8
    /// A color from its channels.
    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }
    /// `rrggbb` in lowercase hex.
    public var description: String {
        [red, green, blue].map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }
}

/// The `crop` option: an area cut before resizing.
public struct CropArea: Sendable, Hashable {
    /// Width and height: ≥ 1 pixels, < 1 a fraction of the source, 0 the full side.
    public var width, height: Double
    /// The crop's own gravity; `nil` uses the request's ``ProcessingOptions/gravity``.
    public var gravity: Gravity?
}

/// The `trim` option: remove a uniform border.
public struct TrimOptions: Sendable, Hashable {
    /// Color distance (0…255 per channel) still counted as background.
    public var threshold: Double
    /// The background color; `nil` takes the top-left pixel's.
    public var color: RGBColor?
    /// Cut equal amounts from left and right / top and bottom.
    public var equalHorizontal, equalVertical: Bool
}

/// The output formats the service can encode.
public enum OutputFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg = "jpg", png, webp, avif, gif

    /// The format named by an imgproxy extension (`jpg`, `jpeg`, `png`, `webp`, `avif`, `gif`).
    public init?(name: String) {
        switch name.lowercased() {
        case "jpg", "jpeg": self = .jpeg
        case "png": self = .png
        case "webp": self = .webp
        case "avif": self = .avif
        case "gif": self = .gif
        default: return nil
        }
    }

    /// The pipeline's format.
    public var imageFormat: ImageFormat {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        case .avif: .avif
        case .gif: .gif
        }
    }

    /// The output format for a source format, if the service can encode it.
    public init?(_ format: ImageFormat) {
        switch format {
        case .jpeg: self = .jpeg
        case .png: self = .png
        case .webp: self = .webp
        case .avif: self = .avif
        case .gif: self = .gif
        default: return nil
        }
    }

    /// Whether the format keeps animation.
    public var isAnimatable: Bool { self == .webp || self == .gif || self == .png }
}

/// Every processing option of one request, after presets are applied (SPEC V-2).
///
/// Defaults are imgproxy's. ``canonicalForm`` is a stable text of every field that changes the
/// response, used in cache keys and ETags.
public struct ProcessingOptions: Sendable, Hashable {
    public var resizingType: ResizingType = .fit
    public var width = 0
    public var height = 0
    public var dpr = 1.0
    public var enlarge = false
    public var extend = false
    public var extendGravity: Gravity = .center
    public var gravity: Gravity = .center
    public var crop: CropArea?
    public var trim: TrimOptions?
    /// 0 = the per-format default.
    public var quality = 0
    public var formatQuality: [OutputFormat: Int] = [:]
    /// `nil` = from the URL's extension, else negotiated.
    public var format: OutputFormat?
    public var background: RGBColor?
    /// Gaussian blur sigma; 0 = off.
    public var blur = 0.0
    /// Sharpen sigma; 0 = off.
    public var sharpen = 0.0
    /// Clockwise degrees, a multiple of 90.
    public var rotate = 0
    /// `nil` = the service default (on).
    public var autoRotate: Bool?
    /// `nil` = the service default (on).
    public var stripMetadata: Bool?
    /// `strip_color_profile` (`scp`): convert to sRGB and write no profile (`true`), or keep the
    /// source's colours and embed its profile (`false`); `nil` = the service's setting.
    public var stripColorProfile: Bool?
    public var cacheBuster: String?
    /// Unix time after which the URL is refused.
    public var expires: Int64?
    /// 0 = no limit.
    public var maxBytes = 0
    public var raw = false
    /// `nil` = inline.
    public var returnAttachment: Bool?
    public var filename: String?
    public var skipProcessing: Set<OutputFormat> = []
    /// Names of the presets applied, in order.
    public var presets: [String] = []

    /// Default options.
    public init() {}

    /// A stable text of every field that changes the response body or headers (not `expires`
    /// nor the preset names, whose effect is already in the other fields).
    public var canonicalForm: String {
        var parts: [String] = []
        parts.append("rs:\(resizingType.rawValue):\(width):\(height):\(enlarge):\(extend):\(Self.text(extendGravity))")
        parts.append("dpr:\(dpr)")
        parts.append("g:\(Self.text(gravity))")
        if let crop { parts.append("c:\(crop.width):\(crop.height):\(crop.gravity.map(Self.text) ?? "-")") }
        if let trim {
            parts.append("t:\(trim.threshold):\(trim.color?.description ?? "-"):\(trim.equalHorizontal):\(trim.equalVertical)")
        }
        parts.append("q:\(quality)")
        if !formatQuality.isEmpty {
            parts.append("fq:" + formatQuality.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue):\($0.value)" }.joined(separator: ":"))
        }
        parts.append("f:\(format?.rawValue ?? "-")")
        parts.append("bg:\(background?.description ?? "-")")
        parts.append("bl:\(blur)")
        parts.append("sh:\(sharpen)")
        parts.append("rot:\(rotate)")
        parts.append("ar:\(autoRotate.map(String.init) ?? "-")")
        parts.append("sm:\(stripMetadata.map(String.init) ?? "-")")
        if let stripColorProfile { parts.append("scp:\(stripColorProfile)") }
        parts.append("cb:\(cacheBuster ?? "")")
        parts.append("mb:\(maxBytes)")
        parts.append("raw:\(raw)")
        parts.append("att:\(returnAttachment.map(String.init) ?? "-")")
        parts.append("fn:\(filename ?? "")")
        if !skipProcessing.isEmpty { parts.append("skp:" + skipProcessing.map(\.rawValue).sorted().joined(separator: ":")) }
        return parts.joined(separator: "/")
    }

    private static func text(_ gravity: Gravity) -> String {
        switch gravity {
        case let .anchor(anchor, x, y): "\(anchor.rawValue):\(x):\(y)"
        case .smart: "sm"
        case let .focusPoint(x, y): "fp:\(x):\(y)"
        }
    }
}

extension String {
    func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
