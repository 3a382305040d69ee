import ArgumentParser
import WebImage

/// Image transformation options shared by the commands that write images (SPEC T-2).
///
/// The transformers run in a fixed order whatever the order of the flags:
/// crop → resize → rotate → flip → round corners → blur → grayscale → tint.
struct TransformOptions: ParsableArguments {
    @Option(name: .customLong("resize"), help: ArgumentHelp("Resize to WIDTHxHEIGHT pixels, e.g. 400x300.", valueName: "WxH"))
    var resize: String?

    @Option(name: .customLong("fit"), help: ArgumentHelp("How --resize fits the image: fill (stretch), fit (inside, keep aspect) or cover (fill and crop the centre).", valueName: "fill|fit|cover"))
    var fit: FitMode = .fill

    @Option(name: .customLong("filter"), help: ArgumentHelp("Resampling filter: lanczos3, mitchell, catmull-rom, bilinear or box.", valueName: "name"))
    var filter: FilterName = .lanczos3

    @Option(name: .customLong("crop"), help: ArgumentHelp("Crop to X,Y,WIDTH,HEIGHT pixels (clipped to the image), before resizing.", valueName: "X,Y,W,H"))
    var crop: String?

    @Option(name: .customLong("rotate"), help: ArgumentHelp("Rotate clockwise by DEG degrees; the canvas grows to fit.", valueName: "DEG"))
    var rotate: Double?

    @Option(name: .customLong("flip"), help: ArgumentHelp("Mirror: h (left-right) or v (top-bottom). Repeat for both.", valueName: "h|v"))
    var flip: [FlipAxis] = []

    @Option(name: .customLong("blur"), help: ArgumentHelp("Gaussian blur with standard deviation R pixels.", valueName: "R"))
    var blur: Double?

    @Flag(name: .customLong("grayscale"), help: "Convert to grayscale (Rec. 601 luma).")
    var grayscale = false

    @Option(name: .customLong("round-corners"), help: ArgumentHelp("Round the corners with radius R pixels.", valueName: "R"))
    var roundCorners: Double?

    @Option(name: .customLong("tint"), help: ArgumentHelp("Tint with colour RRGGBB or RRGGBBAA (hex; alpha is the strength).", valueName: "RRGGBB[AA]"))
    var tint: String?

    enum FitMode: String, ExpressibleByArgument, CaseIterable {
        case fill, fit, cover

        var mode: ResizeMode {
            switch self {
            case .fill: .fill
            case .fit: .aspectFit
            case .cover: .aspectFill
            }
        }
    }

    enum FilterName: String, ExpressibleByArgument, CaseIterable {
        case lanczos3, mitchell, catmullRom = "catmull-rom", bilinear, box

        var filter: ResizeFilter {
            switch self {
            case .lanczos3: .lanczos3
            case .mitchell: .mitchell
            case .catmullRom: .catmullRom
            case .bilinear: .bilinear
            case .box: .box
            }
        }
    }

    enum FlipAxis: String, ExpressibleByArgument, CaseIterable {
        case h, v
    }

    func validate() throws {
        _ = try makeTransformer()
    }

    /// The transformers the options ask for, as one pipeline in the fixed order; `nil` when
    /// none was asked for.
    /// - Throws: `ValidationError` for malformed values.
    func makeTransformer() throws -> (any ImageTransformer)? {
        var list: [any ImageTransformer] = []
        if let crop {
            let parts = crop.split(separator: ",").map { Int($0.filter { $0 != " " }) }
            guard parts.count == 4, let x = parts[0], let y = parts[1], let w = parts[2], let h = parts[3], w > 0, h > 0
            else { throw ValidationError("--crop expects X,Y,WIDTH,HEIGHT with positive WIDTH and HEIGHT, got '\(crop)'") }
            list.append(CropTransformer(rect: PixelRect(x: x, y: y, width: w, height: h)))
        }
        if let resize {
            let parts = resize.lowercased().split(separator: "x").map { Int($0) }
            guard parts.count == 2, let w = parts[0], let h = parts[1], w > 0, h > 0 else {
                throw ValidationError("--resize expects WIDTHxHEIGHT with positive numbers, got '\(resize)'")
            }
            try OptionLimits.checkPixels(w, option: "--resize width")
            try OptionLimits.checkPixels(h, option: "--resize height")
            list.append(ResizeTransformer(size: PixelSize(width: w, height: h), mode: fit.mode, filter: filter.filter))
        }
        if let rotate {
            guard rotate.isFinite else { throw ValidationError("--rotate expects a number of degrees") }
            list.append(RotateTransformer(angle: rotate, fitSize: true))
        }
        if !flip.isEmpty {
            list.append(FlipTransformer(horizontal: flip.contains(.h), vertical: flip.contains(.v)))
        }
        if let roundCorners {
            try OptionLimits.checkRadius(roundCorners, option: "--round-corners")
            list.append(RoundCornersTransformer(radius: roundCorners))
        }
        if let blur {
            try OptionLimits.checkRadius(blur, option: "--blur")
            list.append(BlurTransformer(radius: blur))
        }
        if grayscale {
            list.append(GrayscaleTransformer())
        }
        if let tint {
            guard let color = Self.parseColor(tint) else {
                throw ValidationError("--tint expects RRGGBB or RRGGBBAA hex, got '\(tint)'")
            }
            list.append(TintTransformer(color: color))
        }
        switch list.count {
        case 0: return nil
        case 1: return list[0]
        default: return PipelineTransformer(list)
        }
    }

    /// `RRGGBB` or `RRGGBBAA` (an optional leading `#`) as a colour.
    static func parseColor(_ text: String) -> RGBA? {
        let hex = text.hasPrefix("#") ? String(text.dropFirst()) : text
        guard hex.count == 6 || hex.count == 8, hex.allSatisfy(\.isHexDigit), let value = UInt32(hex, radix: 16) else { return nil }
        let full = hex.count == 6 ? value << 8 | 0xFF : value
        return RGBA(
            r: UInt8(full >> 24 & 0xFF), g: UInt8(full >> 16 & 0xFF), b: UInt8(full >> 8 & 0xFF), a: UInt8(full & 0xFF))
    }
}
