import ArgumentParser
import Foundation
import WebImage

/// `webimage compare REFERENCE DISTORTED`: the SSIMULACRA2 score of an image against its
/// reference (SPEC V-15).
struct CompareCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Score how close an image looks to its reference (SSIMULACRA2, 0–100).",
        discussion: """
            Prints the SSIMULACRA2 score of DISTORTED against REFERENCE: 100 for identical \
            pixels, about 90 visually lossless, 70 high quality, 50 medium, 30 low, and below \
            0 for very strong distortion. Both images are decoded (the first frame of an \
            animation), turned upright and converted to sRGB; they must have the same size, at \
            least 8x8. Images with transparency are scored on a dark and on a light background \
            and the lower score is printed. Inputs may be paths or http, https, file or data \
            URLs. --json prints one JSON object with the score and the size.
            """)

    @Argument(help: ArgumentHelp("The original image: a path or an http, https, file or data URL.", valueName: "reference"))
    var reference: String

    @Argument(help: ArgumentHelp("The image to score against it.", valueName: "distorted"))
    var distorted: String

    @Flag(help: "Print a JSON object ({\"distorted\",\"reference\",\"size\",\"ssimulacra2\"}) instead of the bare score.")
    var json = false

    @Option(help: ArgumentHelp("For URLs: seconds a connection may wait for the server, to connect or between bytes.", valueName: "seconds"))
    var timeout = 15.0

    @OptionGroup(title: "Address policy (URLs)")
    var addressPolicy: AddressPolicyOptions
    @OptionGroup var maxTime: MaxTimeOption

    func validate() throws {
        try OptionLimits.checkTimeout(timeout)
        try addressPolicy.validate()
    }

    func run() async throws {
        let loader = InputLoader(timeout: timeout, maxTime: maxTime, addressPolicy: addressPolicy.policy)
        let referenceImage = await decode(reference, loader: loader)
        let distortedImage = await decode(distorted, loader: loader)
        await loader.shutdown()
        guard let referenceImage, let distortedImage else { throw ExitCode.failure }
        let score: Double
        do {
            score = try SSIMULACRA2.score(reference: referenceImage.pixels, distorted: distortedImage.pixels)
        } catch {
            Console.error("\(distorted): \(ImageReport.message(for: error))")
            throw ExitCode.failure
        }
        if json {
            let result = Result(
                reference: reference, distorted: distorted,
                size: "\(referenceImage.pixels.width)x\(referenceImage.pixels.height)", ssimulacra2: score)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            Console.out(String(decoding: try encoder.encode(result), as: UTF8.self))
        } else {
            Console.out(String(format: "%.6f", score))
        }
    }

    /// The JSON form of a comparison.
    private struct Result: Encodable {
        let reference: String
        let distorted: String
        let size: String
        let ssimulacra2: Double
    }

    /// The first frame of `input`, upright in sRGB; `nil` after reporting why not.
    private func decode(_ input: String, loader: InputLoader) async -> ImageFrame? {
        let data: Data
        do {
            data = try await loader.data(for: input)
        } catch {
            Console.error("cannot read \(input): \(error.description)")
            return nil
        }
        var options = DecodeOptions()
        options.firstFrameOnly = true
        options.colorManagement = .convertToSRGB
        do {
            guard let frame = try CodersManager.shared.decode(data, options: options).frames.first else {
                Console.error("\(input): no image in the file")
                return nil
            }
            return frame
        } catch {
            Console.error("\(input): \(ImageReport.message(for: error))")
            return nil
        }
    }
}
