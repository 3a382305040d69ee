import CTurboJPEG
import Foundation
import WebImageCore

/// The JPEG decode shared by ``JPEGCoder/decode(_:options:)`` and the incremental decoder.
enum JPEGDecompression {
    /// What the header says, read without decoding pixels.
    struct Header {
        /// Size as stored (before orientation).
        var size: PixelSize
        /// TurboJPEG colorspace (`TJCS_*`).
        var colorspace: Int32
        /// TurboJPEG chrominance subsampling (`TJSAMP_*`).
        var subsampling: Int32
        /// EXIF orientation, `.up` when absent.
        var orientation: ImageOrientation
        /// Whether an Adobe APP14 marker is present (CMYK is then stored inverted).
        var hasAdobeMarker: Bool
        /// Whether the frame is progressive.
        var isProgressive: Bool

        /// The embedded ICC profile, when it fits the pixels (a CMYK profile for CMYK/YCCK,
        /// grey for greyscale, RGB for the rest; a mismatched profile is ignored, as browsers do).
        var colorProfile: ColorProfile?

        var isCMYK: Bool {
            colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
        }

        var colorModel: ColorModel {
            if isCMYK { return .cmyk }
            return colorspace == Int32(TJCS_GRAY.rawValue) ? .gray : .rgb
        }
    }

    /// Flags for every decompression: refuse progressive files with an unreasonable number of
    /// scans (a denial-of-service pattern) instead of spending minutes on them.
    static let baseFlags = Int32(TJFLAG_LIMITSCANS)

    /// Reads and validates the header of `b`.
    /// - Throws: `badImageData` for data that is not a readable JPEG header, `unsupportedFormat`
    ///   for 12/16-bit samples and lossless or hierarchical files.
    static func readHeader(_ b: UnsafeRawBufferPointer, handle: TurboJPEGHandle) throws -> Header {
        guard ImageFormat.detect(b) == .jpeg, let base = b.baseAddress else {
            throw WebImageError.badImageData(reason: "not JPEG data")
        }
        var scanner = JPEGMarkerScanner()
        scanner.scan(b, stopAtFirstScan: true)
        if let frame = scanner.frame {
            guard frame.precision == 8 else {
                throw WebImageError.unsupportedFormat(
                    .jpeg, reason: "\(frame.precision)-bit samples; only 8-bit JPEG is supported")
            }
            guard frame.isSupportedProcess else {
                throw WebImageError.unsupportedFormat(
                    .jpeg, reason: String(format: "lossless or hierarchical JPEG (SOF marker 0x%02X)", frame.marker))
            }
        }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        let rc = tjDecompressHeader3(
            handle.raw, base.assumingMemoryBound(to: UInt8.self), UInt(b.count),
            &width, &height, &subsampling, &colorspace)
        guard rc == 0 else {
            throw WebImageError.badImageData(reason: "invalid JPEG header: \(handle.errorMessage)")
        }
        var header = Header(
            size: PixelSize(width: Int(width), height: Int(height)),
            colorspace: colorspace,
            subsampling: subsampling,
            orientation: EXIFOrientation.orientation(fromJPEG: b) ?? .up,
            hasAdobeMarker: scanner.hasAdobeMarker,
            isProgressive: scanner.frame?.isProgressive ?? false)
        if let profile = JPEGICCProfile.read(HeaderBytes(b)), profile.colorModel == header.colorModel {
            header.colorProfile = profile
        }
        return header
    }

    /// The size the decompression will allocate for `header` under `options` (see ``decode(_:options:acceptDamage:scaleDenominator:)``).
    static func plannedDecodeSize(_ header: Header, options: DecodeOptions) -> PixelSize {
        guard header.size.width > 0, header.size.height > 0 else { return header.size }
        let swaps = header.orientation.swapsDimensions
        let displayed = swaps ? transposed(header.size) : header.size
        let displayedTarget = options.targetSize(for: displayed)
        let storedTarget = swaps ? transposed(displayedTarget) : displayedTarget
        return dctScaledSize(of: header.size, covering: storedTarget)
    }

    /// Decodes `data` per `options`.
    ///
    /// - Parameter acceptDamage: accept pixel data damaged by truncation or corruption (the
    ///   incremental decoder's partial images); otherwise such data throws `badImageData`.
    ///   See ``JPEGWarning`` for the rule.
    /// - Parameter scaleDenominator: decode at exactly 1/`scaleDenominator` (1, 2, 4 or 8) of
    ///   the stored size by DCT scaling, with no further resampling (``JPEGCoder/decode(_:scaleDenominator:options:)``);
    ///   `nil` plans the size from the options' thumbnail settings.
    static func decode(_ data: Data, options: DecodeOptions, acceptDamage: Bool, scaleDenominator: Int? = nil) throws -> Image {
        guard !data.isEmpty else { throw WebImageError.badImageData(reason: "empty data") }
        return try data.withUnsafeBytes { b in
            let handle = try TurboJPEGHandle.decompressor()
            let header = try readHeader(b, handle: handle)
            let reduced = scaleDenominator.map { JPEGCoder.reducedSize(of: header.size, scaleDenominator: $0) }
            // Limits are checked on the declared size, before any pixel memory exists: the pixel
            // limit on the image, the decoded-bytes budget on what the DCT-scaled decode allocates.
            try options.limits.check(canvas: header.size, allocating: reduced ?? Self.plannedDecodeSize(header, options: options))

            let orientation = header.orientation
            let swaps = orientation.swapsDimensions
            let displayed = swaps ? transposed(header.size) : header.size
            let displayedTarget = reduced.map { swaps ? transposed($0) : $0 } ?? options.targetSize(for: displayed)
            let storedTarget = swaps ? transposed(displayedTarget) : displayedTarget
            let decodeSize = reduced ?? dctScaledSize(of: header.size, covering: thumbnailDecodeTarget(storedTarget, full: header.size))

            // RGB and grey with a profile are converted to sRGB in the buffer TurboJPEG just
            // filled when it is the final size (no new buffer); a thumbnail is converted after
            // its resampling, on fewer pixels.
            let convertsInPlace = options.colorManagement == .convertToSRGB && !header.isCMYK && header.colorProfile != nil
                && decodeSize == storedTarget
            var pixels = try PixelBuffer.make(width: decodeSize.width, height: decodeSize.height) { out in
                try decompress(
                    b, into: out, size: decodeSize, header: header, handle: handle, acceptDamage: acceptDamage,
                    colorManagement: options.colorManagement)
                if convertsInPlace, let profile = header.colorProfile {
                    ColorConversion.convertToSRGB(out, from: profile)
                }
            }
            if pixels.width != storedTarget.width || pixels.height != storedTarget.height {
                pixels = pixels.thumbnail(to: storedTarget)
            }
            var resultOrientation = orientation
            if options.applyOrientation {
                pixels = pixels.applying(orientation)
                resultOrientation = .up
            }
            let image = Image(
                pixels: pixels, scale: options.imageScale, orientation: resultOrientation,
                format: .jpeg, hasAlpha: false)
            // CMYK was converted to RGB, and RGB to sRGB, while decompressing.
            let finished = ColorConversion.finish(
                image, profile: header.isCMYK || convertsInPlace ? nil : header.colorProfile, options: options)
            guard options.decodesGainMap, !acceptDamage else { return finished }
            let withMap = JPEGGainMapReader.attach(
                to: finished, b, header: header, decoded: storedTarget, allocated: decodeSize,
                scaleDenominator: scaleDenominator, options: options)
            return try GainMapHDR.apply(withMap, options: options)
        }
    }

    /// Runs TurboJPEG into `out` (RGBA, or CMYK converted in place to RGBA).
    static func decompress(
        _ b: UnsafeRawBufferPointer,
        into out: UnsafeMutableBufferPointer<UInt8>,
        size: PixelSize,
        header: Header,
        handle: TurboJPEGHandle,
        acceptDamage: Bool,
        colorManagement: ColorManagement
    ) throws {
        guard let source = b.baseAddress?.assumingMemoryBound(to: UInt8.self), let destination = out.baseAddress
        else { throw WebImageError.badImageData(reason: "empty data") }
        // A progressive file at 1/8 or 1/4: from only what the reduced IDCT reads, block by block,
        // when that gives the same pixels (SPEC C-4a); a download's prefix once the scans the
        // reduced decode reads have arrived.
        let reducedScale = header.isProgressive ? JPEGReducedScanDecode.ownScale(of: header.size, decodedAt: size) : nil
        let fromReducedScans = reducedScale.map {
            JPEGReducedScanDecode.decode(
                b, into: out, size: size, scaleDenominator: $0, cmyk: header.isCMYK, acceptingPrefix: acceptDamage)
        } ?? false
        if !fromReducedScans {
            let format = header.isCMYK ? Int32(TJPF_CMYK.rawValue) : Int32(TJPF_RGBA.rawValue)
            func run(_ flags: Int32) -> Int32 {
                tjDecompress2(
                    handle.raw, source, UInt(b.count), destination, Int32(size.width), Int32(size.width * 4),
                    Int32(size.height), format, flags)
            }
            try runChecked(run, handle: handle, acceptDamage: acceptDamage)
        }
        if header.isCMYK {
            // Through LittleCMS with its profile, or the built-in default CMYK profile when it
            // has none (CMYK pixels cannot be kept, so `.preserve` converts too); the naive
            // conversion when asked to ignore colour.
            let profile = header.colorProfile ?? DefaultCMYKProfile.profile
            if colorManagement == .ignore
                || !ColorConversion.convertCMYK(out, profile: profile, inverted: header.hasAdobeMarker)
            {
                JPEGColorConversion.convertCMYKToRGBA(out, inverted: header.hasAdobeMarker)
            }
        }
    }

    /// Runs a TurboJPEG decompression (`run` with flags) under the warning rule of ``JPEGWarning``.
    private static func runChecked(_ run: (Int32) -> Int32, handle: TurboJPEGHandle, acceptDamage: Bool) throws {
        func failure() -> WebImageError {
            .badImageData(reason: "JPEG decoding failed: \(handle.errorMessage)")
        }
        if acceptDamage {
            if run(baseFlags) != 0 {
                guard handle.lastFailureWasWarning, JPEGWarning(message: handle.errorMessage) != .notAWarning else {
                    throw failure()
                }
            }
        } else if run(baseFlags | Int32(TJFLAG_STOPONWARNING)) != 0 {
            // Stopping at the first warning tells exactly which warning came first.
            guard handle.lastFailureWasWarning else { throw failure() }
            switch JPEGWarning(message: handle.errorMessage) {
            case .harmless:
                // Decode again through the harmless warning; anything worse after it still fails.
                if run(baseFlags) != 0 {
                    guard handle.lastFailureWasWarning, JPEGWarning(message: handle.errorMessage) == .harmless else {
                        throw failure()
                    }
                }
            case .damaged:
                throw WebImageError.badImageData(reason: "truncated or corrupt JPEG: \(handle.errorMessage)")
            case .notAWarning:
                throw failure()
            }
        }
    }

    /// What a thumbnail's DCT-scaled decode must cover: twice the thumbnail in each direction
    /// (at most the full size), as libvips does. DCT scaling to 1/8 is an 8×8 block average —
    /// shrinking straight to the target that way aliases and blurs; decoding to at least twice
    /// the target leaves the rest to Lanczos3 (``/WebImageCore/PixelBuffer/thumbnail(to:)``),
    /// which sees every frequency the thumbnail can show. On a 12 MP photo to 400×300 that is
    /// 49–51 dB PSNR against a full-resolution Lanczos instead of 42 (docs/PERFORMANCE.md).
    static func thumbnailDecodeTarget(_ target: PixelSize, full: PixelSize) -> PixelSize {
        guard target.width < full.width || target.height < full.height else { return target }
        // Compared by halving `full`, so that no product can overflow.
        return PixelSize(
            width: target.width > full.width / 2 ? full.width : target.width * 2,
            height: target.height > full.height / 2 ? full.height : target.height * 2)
    }

    /// The smallest TurboJPEG DCT-scaled size of `full` that is still at least `target` in both
    /// dimensions (`full` itself when no scaling factor shrinks it that way).
    static func dctScaledSize(of full: PixelSize, covering target: PixelSize) -> PixelSize {
        guard target.width < full.width || target.height < full.height else { return full }
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count), count > 0 else { return full }
        var best = full
        for index in 0..<Int(count) {
            let num = Int(factors[index].num)
            let denom = Int(factors[index].denom)
            guard num > 0, denom > 0, num <= denom else { continue }
            // TJSCALED: ceil(dimension × num / denom). JPEG dimensions are ≤ 65535, num ≤ 16.
            let scaled = PixelSize(
                width: (full.width * num + denom - 1) / denom,
                height: (full.height * num + denom - 1) / denom)
            if scaled.width >= target.width, scaled.height >= target.height, scaled.pixelCount < best.pixelCount {
                best = scaled
            }
        }
        return best
    }

    static func transposed(_ size: PixelSize) -> PixelSize {
        PixelSize(width: size.height, height: size.width)
    }
}
