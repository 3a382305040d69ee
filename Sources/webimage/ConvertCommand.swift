import ArgumentParser
import Foundation
import WebImage

/// `webimage convert IN OUT`: decode (optionally to a thumbnail), encode, write atomically. `IN`
/// may be a path or an `http`, `https`, `file` or `data` URL.
struct ConvertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert an image to another format, optionally as a thumbnail.",
        discussion: """
            The output format is --format, or else the output file's extension. Transforms run \
            after decoding (and after --thumbnail) in a fixed order: crop, resize, rotate, flip, \
            round corners, blur, grayscale, tint, pixelate, padding, watermark (imgproxy's \
            semantics: --watermark-position ce|no|so|ea|we|noea|nowe|soea|sowe|re, offsets in \
            pixels or fractions, --watermark-scale relative to the result, 0 = own size). The input may be a path or an http, https, file \
            or data URL (loaded through the library's loaders). The output is written \
            atomically: it appears complete or not at all. An output that is a symbolic link \
            is written through the link. An output that is the input file itself is refused \
            unless --overwrite is given.
            """)

    @Argument(help: ArgumentHelp("The image to read: a path or an http, https, file or data URL.", valueName: "input"))
    var input: String

    @Argument(help: "The file to write.")
    var output: String

    @Option(help: "Output format: jpeg, png, gif, webp or avif (default: from OUT's extension).")
    var format: String?

    @Option(help: "Quality 0–100 for lossy formats (default 90).")
    var quality: Int?

    @Flag(help: "Encode WebP losslessly.")
    var lossless = false

    @Option(help: ArgumentHelp("Decode to fit within PX×PX pixels (aspect ratio kept).", valueName: "PX"))
    var thumbnail: Int?

    @Option(
        name: .customLong("max-file-size"),
        help: ArgumentHelp("Try to keep the output at most this many bytes.", valueName: "BYTES"))
    var maxFileSize: Int?

    @Option(help: ArgumentHelp("For URLs: seconds a connection may wait for the server, to connect or between bytes.", valueName: "seconds"))
    var timeout = 15.0

    @OptionGroup(title: "Address policy (URLs)")
    var addressPolicy: AddressPolicyOptions
    @OptionGroup var maxTime: MaxTimeOption

    @Flag(name: .customLong("first-frame"), help: "Keep only the first frame of an animation.")
    var firstFrame = false

    @Flag(help: "Allow the output to be the input file itself (it is then replaced).")
    var overwrite = false

    @Flag(
        name: .customLong("keep-color-profile"),
        help: "Keep the source's colours and embed its ICC profile (JPEG, PNG, WebP, AVIF) instead of converting to sRGB.")
    var keepColorProfile = false

    @Flag(
        help: "Keep a PQ or HLG source's HDR signal and bit depth in PNG (16-bit, cICP), AVIF (10-bit, CICP) and JPEG XL (16-bit) output, and write JPEG output as the SDR rendition plus a gain map computed from the HDR pixels (Ultra HDR, ISO 21496-1), instead of tone-mapping to SDR; a gain-map JPEG or HEIC gives its HDR rendition (PQ) there.")
    var hdr = false

    /// The outputs `--hdr` writes HDR into.
    static let hdrOutputs: Set<ImageFormat> = [.png, .avif, .jxl, .jpeg]

    @OptionGroup(title: "Transforms")
    var transform: TransformOptions

    /// The output format from `--format` or the output's extension.
    var outputFormat: ImageFormat? {
        if let format { return ImageFormat(name: format) }
        return ImageFormat(name: URL(fileURLWithPath: output).pathExtension)
    }

    func validate() throws {
        try OptionLimits.checkTimeout(timeout)
        try addressPolicy.validate()
        if let format, ImageFormat(name: format) == nil {
            throw ValidationError("Unknown format '\(format)'. Use jpeg, png, gif, webp or avif.")
        }
        if outputFormat == nil {
            throw ValidationError("Cannot tell the output format from '\(output)'. Add --format.")
        }
        try OptionLimits.checkQuality(quality)
        try OptionLimits.checkPixels(thumbnail, option: "--thumbnail")
        try OptionLimits.checkPositiveBytes(maxFileSize, option: "--max-file-size")
    }

    func run() async throws {
        guard let format = outputFormat else { throw ExitCode.validationFailure }
        let destination: String
        do {
            destination = try OutputPath.followingLinks(output)
        } catch {
            Console.error("cannot write \(output): \(error.localizedDescription)")
            throw ExitCode.failure
        }
        let inputPath: String?
        if let url = InputLoader.url(input) {
            inputPath = url.isFileURL ? url.path : nil
        } else {
            inputPath = input
        }
        if let inputPath, !overwrite, OutputPath.isSameFile(inputPath, destination) {
            Console.error("\(output) is the input file \(input): refusing to replace it (add --overwrite to allow).")
            throw ExitCode.failure
        }
        var conversion = ImageConversion(format: format)
        conversion.decodeOptions.firstFrameOnly = firstFrame
        conversion.decodeOptions.colorManagement = keepColorProfile ? .preserve : .convertToSRGB
        // Only outputs that carry HDR decode the HDR rendition; a JPEG keeps a source's gain map
        // as it is (and computes one from a PQ or HLG source's HDR pixels).
        conversion.decodeOptions.dynamicRange = hdr && Self.hdrOutputs.contains(format) ? .high : .standard
        conversion.decodeOptions.appliesGainMap = format != .jpeg
        if let thumbnail { conversion.decodeOptions.thumbnailPixelSize = PixelSize(width: thumbnail, height: thumbnail) }
        if let quality { conversion.encodeOptions.quality = Double(quality) / 100 }
        conversion.encodeOptions.lossless = lossless
        conversion.encodeOptions.maxFileSize = maxFileSize
        conversion.encodeOptions.keepAnimation = !firstFrame
        conversion.transformer = try transform.makeTransformer()

        let started = ContinuousClock.now
        let data: Data
        if InputLoader.url(input) != nil {
            let loader = InputLoader(timeout: timeout, maxTime: maxTime, addressPolicy: addressPolicy.policy)
            do {
                data = try await loader.data(for: input)
                await loader.shutdown()
            } catch {
                await loader.shutdown()
                Console.error("cannot load \(input): \(error.description)")
                throw ExitCode.failure
            }
        } else {
            do {
                data = try LocalFile.read(input)
            } catch {
                Console.error("cannot read \(error.description)")
                throw ExitCode.failure
            }
        }
        do {
            let target = URL(fileURLWithPath: destination)
            let conversion = conversion
            let result = try await maxTime.run(started: started) { deadline in
                try conversion.convert(data, to: target, mayCommit: deadline.claimCommit)
            }
            Console.out(
                "\(input) → \(output): \(format) \(result.pixelSize.width)x\(result.pixelSize.height), "
                    + "\(result.frameCount) frame\(result.frameCount == 1 ? "" : "s"), \(result.bytes) bytes")
        } catch WebImageError.fileAccess(let path, let reason) {
            Console.error("\(path): \(reason)")
            throw ExitCode.failure
        } catch {
            Console.error("\(input): \(ImageReport.message(for: error))")
            throw ExitCode.failure
        }
    }
}
