import Foundation
import Testing
import WebImage

@testable import WebImageServer

/// The service's request line as docs/ARCHITECTURE.md lists it: the parse checks in order, the
/// processing steps by name.
struct RequestLineTests {
    private let policy: SourcePolicy = {
        var configuration = ImageServiceConfiguration()
        configuration.allowedSourcePrefixes = ["http://allowed.example/"]
        return SourcePolicy(configuration: configuration)
    }()
    private let signer = URLSigner(keyPairs: [URLSigner.KeyPair(key: Array("key".utf8), salt: Array("salt".utf8))])
    private let negotiation = FormatNegotiation(autoAVIF: true, autoWebP: true)

    private func parse(_ path: String, accept: String? = nil, signer: URLSigner? = nil, now: Date = Date()) throws(ImageServiceError) -> ParsedRequest<ImageOutput> {
        try ParsedRequest<ImageOutput>(
            path: path, accept: accept, signer: signer, presets: PresetTable(), policy: policy, negotiation: negotiation, now: now)
    }

    /// The error parsing `path` throws, `nil` when it parses.
    private func error(_ path: String, signer: URLSigner? = nil) -> ImageServiceError? {
        do { _ = try parse(path, signer: signer); return nil } catch { return error }
    }

    @Test("Given a request failing several checks, then the first check of the line answers: signature, options, expiry, source policy")
    func checksInOrder() {
        // A bad signature is answered before the bad option, the expiry and the refused source.
        let forbidden = error("/bad/w:x/exp:1/plain/http://elsewhere.example/a.png", signer: signer)
        #expect(forbidden == .badSignature)
        // Then the options, before the expiry and the source.
        #expect(error("/_/w:x/exp:1/plain/http://elsewhere.example/a.png").map(\.status) == 400)
        // Then the expiry, before the source.
        #expect(error("/_/exp:1/plain/http://elsewhere.example/a.png") == .expired)
        #expect(error("/_/w:10/plain/http://elsewhere.example/a.png").map(\.status) == 403)
        // A signed path passes the signature check.
        let path = "/w:10/plain/http://allowed.example/a.png"
        #expect(error("/" + signer.sign(path) + path, signer: signer) == nil)
    }

    @Test("Given the output format, then the URL fixes it for every Accept, else Accept chooses its bucket")
    func formatChoice() throws {
        let fixed = try parse("/_/f:png/plain/http://allowed.example/a.png", accept: "image/avif")
        #expect(fixed.output.format == .fixed(.png) && fixed.output.variant == .any)
        let avif = try parse("/_/w:10/plain/http://allowed.example/a.png", accept: "image/avif,image/webp")
        #expect(avif.output.format == .negotiated(.avif) && avif.output.variant == .avif)
        let other = try parse("/_/w:10/plain/http://allowed.example/a.png", accept: "image/png")
        #expect(other.output.format == .source && other.output.variant == .other)
        #expect(other.output.format.format(for: .gif) == .gif && other.output.format.format(for: .bmp) == .jpeg)
        #expect(other.source == "http://allowed.example/a.png")
    }

    @Test("Given the processing pipeline, then its steps run in the documented order")
    func stepOrder() {
        #expect(ProcessingPipeline.service.steps.map(\.name) == [
            "thumbnail-orientation", "page", "disable-animation", "rotate", "flip", "trim", "plan", "watermark", "frames",
            "chained", "result-dimension", "autoquality",
        ])
        #expect(FrameStep.all.map(\.name) == [
            "resample", "blur", "sharpen", "unsharp-masking", "pixelate", "adjust", "monochrome", "duotone", "colorize", "gradient", "extend",
            "padding", "flatten", "watermark",
        ])
    }
}
