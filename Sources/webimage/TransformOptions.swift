import ArgumentParser
import WebImage

extension WatermarkPosition: ExpressibleByArgument {}

/// Image transformation options shared by the commands that write images (SPEC T-2).
///
/// The transformers run in a fixed order whatever the order of the flags:
/// crop → resize → rotate → flip → round corners → blur → grayscale → tint → pixelate →
/// padding → watermark.
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

    @Option(name: .customLong("flip"), help: ArgumentHelp("Mirror: h (left-right), v (top-bottom) or hv (both; or repeat the flag).", valueName: "h|v|hv"))
    var flip: [FlipAxis] = []

    @Option(name: .customLong("blur"), help: ArgumentHelp("Gaussian blur with standard deviation R pixels.", valueName: "R"))
    var blur: Double?

    @Flag(name: .customLong("grayscale"), help: "Convert to grayscale (Rec. 601 luma).")
    var grayscale = false

    @Option(name: .customLong("round-corners"), help: ArgumentHelp("Round the corners with radius R pixels.", valueName: "R"))
    var roundCorners: Double?

    @Option(name: .customLong("tint"), help: ArgumentHelp("Tint with colour RRGGBB or RRGGBBAA (hex; alpha is the strength).", valueName: "RRGGBB[AA]"))
    var tint: String?

    @Option(name: .customLong("pixelate"), help: ArgumentHelp("Pixelate in blocks of N×N pixels.", valueName: "N"))
    var pixelate: Int?

    @Option(name: .customLong("padding"), help: ArgumentHelp("Add a margin of TOP,RIGHT,BOTTOM,LEFT pixels (CSS order; one value for all four).", valueName: "T,R,B,L"))
    var padding: String?

    @Option(name: .customLong("padding-color"), help: ArgumentHelp("Fill the --padding margin with RRGGBB or RRGGBBAA (default: transparent).", valueName: "RRGGBB[AA]"))
    var paddingColor: String?

    @Option(name: .customLong("watermark"), help: ArgumentHelp("Composite the image FILE over the result (every frame of an animation).", valueName: "FILE"))
    var watermark: String?

    @Option(name: .customLong("watermark-opacity"), help: ArgumentHelp("Watermark opacity 0–1 (default 1).", valueName: "O"))
    var watermarkOpacity: Double = 1

    @Option(name: .customLong("watermark-position"), help: ArgumentHelp("Where the watermark goes: ce, no, so, ea, we, noea, nowe, soea, sowe, or re (tiled). Default ce.", valueName: "POS"))
    var watermarkPosition: WatermarkPosition = .center

    @Option(name: .customLong("watermark-offset"), help: ArgumentHelp("Watermark offsets X,Y: pixels, or fractions of the result below 1; for re, the gaps between tiles.", valueName: "X,Y"))
    var watermarkOffset: String?

    @Option(name: .customLong("watermark-scale"), help: ArgumentHelp("Fit the watermark inside this fraction of the result (0: its own size).", valueName: "S"))
    var watermarkScale: Double = 0

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
        case h, v, hv
    }

    func validate() throws {
        _ = try makeTransformer(loadingWatermark: false)
    }

    /// The transformers the options ask for, as one pipeline in the fixed order; `nil` when
    /// none was asked for. `loadingWatermark` false checks the watermark options without
    /// reading the file (and leaves the watermark out).
    /// - Throws: `ValidationError` for malformed values; the decoder's error for a watermark
    ///   file that cannot be read or decoded.
    func makeTransformer(loadingWatermark: Bool = true) throws -> (any ImageTransformer)? {
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
            list.append(
                FlipTransformer(
                    horizontal: flip.contains(.h) || flip.contains(.hv), vertical: flip.contains(.v) || flip.contains(.hv)))
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
        if let pixelate {
            guard pixelate >= 1 else { throw ValidationError("--pixelate expects a block size of at least 1 pixel") }
            try OptionLimits.checkPixels(pixelate, option: "--pixelate")
            list.append(PixelateTransformer(blockSize: pixelate))
        }
        if let padding {
            list.append(try Self.paddingTransformer(padding, color: paddingColor))
        } else if paddingColor != nil {
            throw ValidationError("--padding-color needs --padding")
        }
        if let watermark {
            guard watermarkOpacity.isFinite, (0...1).contains(watermarkOpacity) else {
                throw ValidationError("--watermark-opacity expects a number from 0 to 1")
            }
            guard watermarkScale.isFinite, watermarkScale >= 0, watermarkScale <= 100 else {
                throw ValidationError("--watermark-scale expects a number from 0 to 100")
            }
            let (x, y) = try Self.watermarkOffsets(watermarkOffset)
            if loadingWatermark {
                let mark = try CodersManager.shared.decode(try LocalFile.read(watermark), options: .default)
                list.append(
                    WatermarkTransformer(
                        watermark: mark, opacity: watermarkOpacity, position: watermarkPosition, xOffset: x, yOffset: y,
                        scale: watermarkScale))
            }
        } else if watermarkOffset != nil || watermarkOpacity != 1 || watermarkScale != 0 || watermarkPosition != .center {
            throw ValidationError("--watermark-opacity, --watermark-position, --watermark-offset and --watermark-scale need --watermark")
        }
        switch list.count {
        case 0: return nil
        case 1: return list[0]
        default: return PipelineTransformer(list)
        }
    }

    /// `T,R,B,L` (or one value for all four) and an optional fill colour as a padding.
    static func paddingTransformer(_ text: String, color: String?) throws -> PaddingTransformer {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.filter { $0 != " " }) }
        let values: [Int?] = parts.count == 1 ? Array(repeating: parts[0], count: 4) : parts
        guard values.count == 4, let t = values[0], let r = values[1], let b = values[2], let l = values[3],
            [t, r, b, l].allSatisfy({ $0 >= 0 })
        else { throw ValidationError("--padding expects TOP,RIGHT,BOTTOM,LEFT (or one value) in pixels ≥ 0, got '\(text)'") }
        for value in [t, r, b, l] { try OptionLimits.checkPixels(max(1, value), option: "--padding") }
        var fill: RGBA?
        if let color {
            guard let parsed = parseColor(color) else {
                throw ValidationError("--padding-color expects RRGGBB or RRGGBBAA hex, got '\(color)'")
            }
            fill = parsed
        }
        return PaddingTransformer(top: t, right: r, bottom: b, left: l, color: fill)
    }

    /// `X,Y` as two finite numbers; `nil` is 0,0.
    static func watermarkOffsets(_ text: String?) throws -> (Double, Double) {
        guard let text else { return (0, 0) }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.filter { $0 != " " }) }
        guard parts.count == 2, let x = parts[0], let y = parts[1], x.isFinite, y.isFinite, abs(x) <= 100_000, abs(y) <= 100_000
        else { throw ValidationError("--watermark-offset expects X,Y (pixels, or fractions below 1), got '\(text)'") }
        return (x, y)
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
