import Foundation

extension ProcessingOptions {
    /// Presets may name presets; deeper nesting than this is refused (and stops cycles).
    static let maximumPresetDepth = 8
    /// The largest `page` accepted (a larger one cannot name a page any source is allowed).
    static let maximumPage = 9_999

    /// Options from URL segments: the `default` preset first (if defined), then each segment;
    /// `-` segments chain pipelines (`PipelineChain`), at most `maxPipelines` of them (0 = no
    /// limit). `autoquality` is the service's `autoquality-*` setting, which the empty
    /// arguments of an `aq` option take (``AutoQuality``).
    public static func parse(
        segments: [String], presets: PresetTable, maxPipelines: Int = 0, autoquality: AutoQuality = .none
    ) throws(ImageServiceError) -> ProcessingOptions {
        var chain = PipelineChain(presets: presets)
        if let defaults = presets.presets["default"] { try chain.apply(defaults, from: 0, depth: 1) }
        try chain.apply(segments, from: 0, depth: 0)
        var options = try chain.options(maxPipelines: maxPipelines)
        if let arguments = options.autoqualityArguments {
            do {
                options.autoquality = try AutoQuality.parse(arguments, over: autoquality)
            } catch {
                throw .badOption(option: "autoquality (aq)", reason: error.reason)
            }
        }
        return options
    }

    /// Applies one `name:arg:arg` segment. Unknown names and bad arguments throw
    /// ``ImageServiceError/badOption(option:reason:)`` naming the option.
    mutating func apply(segment: String, presets: PresetTable, depth: Int) throws(ImageServiceError) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map { String($0).removingPercentEncoding ?? String($0) }
        let name = parts[0]
        let args = OptionArguments(option: name, values: Array(parts.dropFirst()))
        switch name {
        case "resize", "rs":
            try args.requireCount(1...6)
            if let type = args.nonEmpty(0) { resizingType = try args.resizingType(type) }
            try applySize(args, from: 1)
        case "size", "s":
            try args.requireCount(1...5)
            try applySize(args, from: 0)
        case "resizing_type", "rt":
            try args.requireCount(1...1)
            resizingType = try args.resizingType(args.values[0])
        case "resizing_algorithm", "ra":
            try args.requireCount(1...1)
            guard let algorithm = ResizingAlgorithm(rawValue: args.values[0]) else {
                throw args.bad("'\(args.values[0])' is not one of " + ResizingAlgorithm.allCases.map(\.rawValue).joined(separator: ", "))
            }
            resizingAlgorithm = algorithm
        case "width", "w":
            try args.requireCount(1...1)
            width = try args.dimension(0)
        case "height", "h":
            try args.requireCount(1...1)
            height = try args.dimension(0)
        case "dpr":
            try args.requireCount(1...1)
            let value = try args.double(0)
            guard value > 0, value <= 8 else { throw args.bad("dpr must be greater than 0 and at most 8") }
            dpr = value
        case "zoom", "z":
            try args.requireCount(1...2)
            let x = try args.double(0), y = args.values.count > 1 ? try args.double(1) : x
            guard x > 0, y > 0, x <= 100, y <= 100 else { throw args.bad("zoom must be greater than 0 and at most 100") }
            (zoomX, zoomY) = (x, y)
        case "min-width", "mw":
            try args.requireCount(1...1)
            minWidth = try args.dimension(0)
        case "min-height", "mh":
            try args.requireCount(1...1)
            minHeight = try args.dimension(0)
        case "extend_aspect_ratio", "extend_ar", "exar":
            try args.requireCount(1...4)
            extendAspectRatio = try args.bool(0)
            if args.values.count > 1 { extendAspectRatioGravity = try args.gravity(from: 1, allowSmart: false) }
        case "page", "pg":
            try args.requireCount(1...1)
            guard let number = Int(args.values[0]), number >= 0, number <= Self.maximumPage else {
                throw args.bad("page must be a whole number from 0 to \(Self.maximumPage)")
            }
            page = number
        case "pages", "pgs":
            try args.requireCount(1...1)
            guard let number = Int(args.values[0]), number >= 1, number <= Self.maximumPage else {
                throw args.bad("pages must be a whole number from 1 to \(Self.maximumPage)")
            }
            pages = number
        case "enforce_thumbnail", "eth":
            try args.requireCount(1...1)
            enforceThumbnail = try args.bool(0)
        case "keep_copyright", "kcr":
            try args.requireCount(1...1)
            keepCopyright = try args.bool(0)
        case "enlarge", "el":
            try args.requireCount(1...1)
            enlarge = try args.bool(0)
        case "extend", "ex":
            try args.requireCount(1...4)
            extend = try args.bool(0)
            if args.values.count > 1 { extendGravity = try args.gravity(from: 1, allowSmart: false) }
        case "gravity", "g":
            try args.requireCount(1...3)
            gravity = try args.gravity(from: 0, allowSmart: true)
        case "crop", "c":
            // The height may be left out, as in imgproxy (`crop:1000` in its chained-pipelines
            // example): 0, the whole height.
            try args.requireCount(1...5)
            let cropWidth = try args.double(0), cropHeight = args.values.count > 1 ? try args.double(1) : 0
            guard cropWidth >= 0, cropHeight >= 0 else { throw args.bad("crop size must not be negative") }
            crop = CropArea(
                width: cropWidth, height: cropHeight,
                gravity: args.values.count > 2 ? try args.gravity(from: 2, allowSmart: true) : nil
            )
        case "trim", "t":
            try args.requireCount(1...4)
            let threshold = try args.double(0)
            guard threshold >= 0 else { throw args.bad("threshold must not be negative") }
            trim = TrimOptions(
                threshold: threshold,
                color: args.nonEmpty(1) == nil ? nil : try args.hexColor(1),
                equalHorizontal: args.nonEmpty(2) == nil ? false : try args.bool(2),
                equalVertical: args.nonEmpty(3) == nil ? false : try args.bool(3)
            )
        case "quality", "q":
            try args.requireCount(1...1)
            quality = try args.quality(0)
        case "autoquality", "aq":
            // Checked now when it names its method (the service's setting cannot change what is
            // valid then); resolved over the setting once the URL is parsed (`parse`).
            try args.requireCount(1...5)
            if args.nonEmpty(0) != nil {
                do { autoquality = try AutoQuality.parse(args.values) } catch { throw args.bad(error.reason) }
            }
            autoqualityArguments = args.values
        case "jpeg_options", "jpgo":
            jpegOptions = try JPEGOptions.parse(args.values, option: name)
        case "png_options", "pngo":
            pngOptions = try PNGOptions.parse(args.values, option: name)
        case "webp_options", "webpo":
            webpOptions = try WebPOptions.parse(args.values, option: name)
        case "format_quality", "fq":
            guard !args.values.isEmpty, args.values.count % 2 == 0 else { throw args.bad("expected format:quality pairs") }
            for index in stride(from: 0, to: args.values.count, by: 2) {
                formatQuality[try args.format(index)] = try args.quality(index + 1)
            }
        case "format", "f", "ext":
            try args.requireCount(1...1)
            bestFormat = args.values[0].lowercased() == "best"
            format = bestFormat ? nil : try args.format(0)
        case "background", "bg":
            if args.values.isEmpty || args.values == [""] {
                background = nil
            } else if args.values.count == 3 {
                background = RGBColor(red: try args.byte(0), green: try args.byte(1), blue: try args.byte(2))
            } else if args.values.count == 1 {
                background = try args.hexColor(0)
            } else {
                throw args.bad("expected R:G:B or a hex color")
            }
        case "blur", "bl":
            try args.requireCount(1...1)
            blur = try args.sigma(0)
        case "sharpen", "sh":
            try args.requireCount(1...1)
            sharpen = try args.sigma(0)
        case "unsharp_masking", "ush":
            unsharpMasking = try UnsharpMasking.parse(args.values, option: name)
        case "pixelate", "pix":
            try args.requireCount(1...1)
            pixelate = try args.dimension(0)
        case "rotate", "rot":
            try args.requireCount(1...1)
            guard let angle = Int(args.values[0]), angle % 90 == 0 else { throw args.bad("angle must be a multiple of 90") }
            rotate = ((angle % 360) + 360) % 360
        case "flip", "fl":
            try args.requireCount(1...2)
            if args.nonEmpty(0) != nil { flipHorizontal = try args.bool(0) }
            if args.nonEmpty(1) != nil { flipVertical = try args.bool(1) }
        case "padding", "pd":
            try args.requireCount(1...4)
            padding = try args.padding()
        case "watermark", "wm":
            watermark = try args.watermark()
        case "auto_rotate", "ar":
            try args.requireCount(1...1)
            autoRotate = try args.bool(0)
        case "strip_metadata", "sm":
            try args.requireCount(1...1)
            stripMetadata = try args.bool(0)
        case "strip_color_profile", "scp":
            try args.requireCount(1...1)
            stripColorProfile = try args.bool(0)
        case "fallback_image_url", "fiu":
            try args.requireCount(1...1)
            guard let bytes = Base64URL.decode(args.values[0]), let url = String(bytes: bytes, encoding: .utf8), !url.isEmpty else {
                throw args.bad("expected the URL-safe base64 of the fallback image's URL")
            }
            fallbackImageURL = url
        case "crop_aspect_ratio", "crop_ar", "car":
            try args.requireCount(1...2)
            cropAspectRatio = try args.number(0, in: 0...10_000, "aspect ratio")
            cropAspectRatioEnlarge = args.nonEmpty(1) == nil ? false : try args.bool(1)
        case "preserve_hdr":
            try args.requireCount(1...1)
            preserveHDR = try args.bool(0)
        case "disable_animation", "da":
            try args.requireCount(1...1)
            disableAnimation = try args.bool(0)
        case "avif_options", "avifo":
            avifOptions = try AVIFOptions.parse(args.values, option: name)
        case "background_alpha", "bga":
            try args.requireCount(1...1)
            backgroundAlpha = try args.number(0, in: 0...1, "alpha")
        case "adjust", "a":
            try args.adjust(&colorFilters)
        case "brightness", "br":
            try args.requireCount(1...1)
            colorFilters.brightness = try args.brightness(0)
        case "contrast", "co":
            try args.requireCount(1...1)
            colorFilters.contrast = try args.number(0, in: 0...OptionArguments.maximumColorFactor, "contrast")
        case "saturation", "sa":
            try args.requireCount(1...1)
            colorFilters.saturation = try args.number(0, in: 0...OptionArguments.maximumColorFactor, "saturation")
        case "monochrome", "mc":
            colorFilters.monochrome = try args.monochrome()
        case "duotone", "dt":
            colorFilters.duotone = try args.duotone()
        case "colorize", "col":
            colorFilters.colorize = try args.colorize()
        case "gradient", "gr":
            colorFilters.gradient = try args.gradient()
        case "max_src_resolution", "msr":
            limits.sourcePixels = try args.megapixelLimit(allowZero: false)
        case "max_src_file_size", "msfs":
            // imgproxy's 0 turns the size check off; a request cannot loosen a limit, so here it
            // keeps the service's.
            limits.sourceBytes = try args.countLimit(allowZero: true)
        case "max_animation_frames", "maf":
            limits.animationFrames = try args.countLimit(allowZero: false)
        case "max_animation_frame_resolution", "mafr":
            limits.animationFramePixels = try args.megapixelLimit(allowZero: true)
        case "max_result_dimension", "mrd":
            limits.resultDimension = try args.countLimit(allowZero: true)
        case "preset", "pr":
            // Presets may hold chained pipelines: `PipelineChain` expands them.
            var chain = PipelineChain(presets: presets, first: self)
            try chain.apply([segment], from: 0, depth: depth)
            guard chain.pipelines.count == 1 else { throw args.bad("a preset with chained pipelines must be used in the URL") }
            self = chain.pipelines[0]
        case "cachebuster", "cb":
            try args.requireCount(1...1)
            cacheBuster = args.values[0].isEmpty ? nil : args.values[0]
        case "expires", "exp":
            try args.requireCount(1...1)
            guard let time = Int64(args.values[0]) else { throw args.bad("expected a unix timestamp") }
            expires = time
        case "max_bytes", "mb":
            try args.requireCount(1...1)
            guard let bytes = Int(args.values[0]), bytes >= 0 else { throw args.bad("expected a byte count") }
            maxBytes = bytes
        case "raw":
            try args.requireCount(1...1)
            raw = try args.bool(0)
        case "return_attachment", "att":
            try args.requireCount(1...1)
            returnAttachment = try args.bool(0)
        case "filename", "fn":
            try args.requireCount(1...2)
            let encoded = args.nonEmpty(1) == nil ? false : try args.bool(1)
            var name = args.values[0]
            if encoded {
                guard let bytes = Base64URL.decode(name), let text = String(bytes: bytes, encoding: .utf8) else {
                    throw args.bad("filename is not URL-safe base64")
                }
                name = text
            }
            guard !name.isEmpty, name.count <= 255, !name.contains(where: { $0.isNewline || $0 == "\"" || $0 == "/" || $0 == "\\" }) else {
                throw args.bad("invalid file name")
            }
            filename = name
        case "skip_processing", "skp":
            guard !args.values.isEmpty else { throw args.bad("expected formats") }
            for index in args.values.indices { skipProcessing.insert(try args.format(index)) }
        default:
            throw .badOption(option: name.isEmpty ? segment : name, reason: "unknown option")
        }
    }

    /// The shared tail of `resize` and `size`: width, height, enlarge, extend (+ gravity).
    private mutating func applySize(_ args: OptionArguments, from start: Int) throws(ImageServiceError) {
        if args.nonEmpty(start) != nil { width = try args.dimension(start) }
        if args.nonEmpty(start + 1) != nil { height = try args.dimension(start + 1) }
        if args.nonEmpty(start + 2) != nil { enlarge = try args.bool(start + 2) }
        if args.nonEmpty(start + 3) != nil { extend = try args.bool(start + 3) }
        if args.nonEmpty(start + 4) != nil { extendGravity = try args.gravity(from: start + 4, allowSmart: false) }
    }
}
