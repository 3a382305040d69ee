import Foundation
import Testing
import WebImage
@testable import WebImageServer
import WebImageTesting

/// `jpeg_options`, `png_options` and `webp_options` and their `jpeg-*`, `png-*`, `webp-*`
/// settings over loopback HTTP, checked in the files' own structure (markers, chunks), and their
/// hostile values.
@Suite(.timeLimit(.minutes(3))) struct ServiceEncoderOptionsTests {
    /// The JPEG's start-of-frame marker (0xC0 baseline, 0xC2 progressive) and each component's
    /// sampling factors byte.
    static func startOfFrame(_ data: Data) -> (marker: UInt8, sampling: [UInt8])? {
        let bytes = [UInt8](data)
        var index = 2
        while index + 4 < bytes.count, bytes[index] == 0xFF {
            let marker = bytes[index + 1], length = Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            if (0xC0...0xC2).contains(marker) {
                let count = Int(bytes[index + 9])
                let sampling = (0..<count).map { bytes[index + 10 + $0 * 3 + 1] }
                return (marker, sampling)
            }
            index += 2 + length
        }
        return nil
    }

    /// The PNG's chunk types in order, with each chunk's data.
    static func chunks(_ data: Data) -> [(type: String, body: [UInt8])] {
        let bytes = [UInt8](data)
        var index = 8, result: [(String, [UInt8])] = []
        while index + 8 <= bytes.count {
            let length = Int(bytes[index]) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8 | Int(bytes[index + 3])
            let type = String(decoding: bytes[(index + 4)..<(index + 8)], as: UTF8.self)
            guard index + 12 + length <= bytes.count else { break }
            result.append((type, Array(bytes[(index + 8)..<(index + 8 + length)])))
            index += 12 + length
        }
        return result
    }

    private func get(_ harness: ServiceHarness, _ options: String, ext: String) async throws -> Data? {
        let reply = try await harness.get(harness.plainPath("/src.png", options: options, ext: ext))
        #expect(reply.status == 200, "\(options): \(reply.text)")
        return reply.status == 200 ? reply.body : nil
    }

    private static func start(_ configure: @escaping (inout ImageServiceConfiguration) -> Void = { _ in }) async throws -> ServiceHarness {
        let harness = try await ServiceHarness.start(configure)
        harness.origin.route("/src.png", .ok(try TestImages.png(width: 64, height: 48), contentType: "image/png"))
        return harness
    }

    @Test("Given jpeg_options, then progressive writes SOF2 and no_subsample 4:4:4; trellis_quant, overshoot_deringing and optimize_scans are accepted and change nothing")
    func jpeg() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let plain = try #require(try await get(harness, "q:50", ext: "jpg"))
        #expect(Self.startOfFrame(plain)?.marker == 0xC0)
        #expect(Self.startOfFrame(plain)?.sampling == [0x22, 0x11, 0x11], "4:2:0 below quality 90")
        let progressive = try #require(try await get(harness, "q:50/jpgo:1", ext: "jpg"))
        #expect(Self.startOfFrame(progressive)?.marker == 0xC2)
        let full = try #require(try await get(harness, "q:50/jpeg_options::1", ext: "jpg"))
        #expect(Self.startOfFrame(full)?.marker == 0xC0)
        #expect(Self.startOfFrame(full)?.sampling == [0x11, 0x11, 0x11])
        let both = try #require(try await get(harness, "q:50/jpgo:true:true", ext: "jpg"))
        #expect(Self.startOfFrame(both)?.marker == 0xC2 && Self.startOfFrame(both)?.sampling == [0x11, 0x11, 0x11])
        let decoded = try TestImages.decode(progressive)
        #expect(decoded.pixelSize == PixelSize(width: 64, height: 48))
        let mozjpegOnly = try #require(try await get(harness, "q:50/jpgo:::1:1:1:0", ext: "jpg"))
        #expect(mozjpegOnly == plain, "trellis_quant, overshoot_deringing and optimize_scans have no effect here")
        let empty = try #require(try await get(harness, "q:50/jpgo:", ext: "jpg"))
        #expect(empty == plain)
    }

    @Test("Given png_options, then interlaced writes Adam7 and quantize a palette of at most quantization_colors entries")
    func png() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let plain = try #require(try await get(harness, "", ext: "png"))
        let ihdr = try #require(Self.chunks(plain).first { $0.type == "IHDR" })
        #expect(ihdr.body[12] == 0 && ihdr.body[9] == 2, "not interlaced, RGB")
        let interlaced = try #require(try await get(harness, "pngo:1", ext: "png"))
        let interlacedHeader = try #require(Self.chunks(interlaced).first { $0.type == "IHDR" })
        #expect(interlacedHeader.body[12] == 1, "Adam7")
        #expect(try TestImages.decode(interlaced).pixels.bytes == TestImages.decode(plain).pixels.bytes, "interlacing is lossless")
        let quantized = try #require(try await get(harness, "png_options::1:16", ext: "png"))
        let chunks = Self.chunks(quantized)
        #expect(chunks.first { $0.type == "IHDR" }?.body[9] == 3, "indexed colour")
        let palette = try #require(chunks.first { $0.type == "PLTE" })
        #expect(palette.body.count <= 16 * 3 && palette.body.count >= 2 * 3, "\(palette.body.count / 3) entries")
        let pixels = try TestImages.decode(quantized).pixels
        var colours = Set<UInt32>()
        for i in stride(from: 0, to: pixels.bytes.count, by: 4) {
            colours.insert(UInt32(pixels.bytes[i]) << 16 | UInt32(pixels.bytes[i + 1]) << 8 | UInt32(pixels.bytes[i + 2]))
        }
        #expect(colours.count <= 16 && colours.count > 1, "\(colours.count) colours")
        let defaultColours = try #require(try await get(harness, "pngo::1", ext: "png"))
        #expect(Self.chunks(defaultColours).first { $0.type == "PLTE" }.map { $0.body.count <= 256 * 3 } == true)
    }

    @Test("Given webp_options, then lossless writes VP8L with the source's pixels, near_lossless VP8L, and smart_subsample and preset change the lossy file")
    func webp() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        func fourCC(_ data: Data) -> String { String(decoding: data[12..<16], as: UTF8.self) }
        let lossy = try #require(try await get(harness, "q:75", ext: "webp"))
        #expect(fourCC(lossy) == "VP8 ")
        let lossless = try #require(try await get(harness, "webpo:lossless", ext: "webp"))
        #expect(fourCC(lossless) == "VP8L")
        #expect(try TestImages.decode(lossless).pixels.bytes == TestImages.gradient(width: 64, height: 48).pixels.bytes)
        let near = try #require(try await get(harness, "q:60/webp_options:near_lossless", ext: "webp"))
        #expect(fourCC(near) == "VP8L")
        let smart = try #require(try await get(harness, "q:75/webpo::1", ext: "webp"))
        #expect(fourCC(smart) == "VP8 " && smart != lossy, "sharp YUV changes the lossy file")
        let text = try #require(try await get(harness, "q:75/webpo:::text", ext: "webp"))
        #expect(fourCC(text) == "VP8 " && text != lossy, "the text preset changes the lossy file")
        let explicitDefaults = try #require(try await get(harness, "q:75/webpo:lossy:0:default", ext: "webp"))
        #expect(explicitDefaults == lossy)
    }

    @Test("Given the jpeg-*, png-* and webp-* settings, then answers follow them and the URL options override them field by field")
    func settings() async throws {
        let (configuration, _, _) = try ImageServiceSettings.configuration(from: [
            "jpeg-progressive": ["yes"], "png-interlaced": ["true"], "webp-compression": ["lossless"], "jpeg-quant-table": ["3"],
        ])
        #expect(configuration.jpegOptions == JPEGOptions(progressive: true, quantTable: 3))
        #expect(configuration.pngOptions == PNGOptions(interlaced: true))
        #expect(configuration.webpOptions == WebPOptions(compression: .lossless))
        #expect(configuration.outputFingerprint != ImageServiceConfiguration().outputFingerprint)
        let bad: [[String: [String]]] = [
            ["jpeg-progressive": ["maybe"]], ["jpeg-quant-table": ["9"]], ["png-quantization-colors": ["1"]],
            ["png-quantization-colors": ["300"]], ["webp-compression": ["lossy2"]], ["webp-preset": ["photos"]],
        ]
        for values in bad {
            #expect(throws: ImageServiceSettings.Problem.self, "\(values)") { try ImageServiceSettings.configuration(from: values) }
        }
        let harness = try await Self.start {
            $0.jpegOptions = configuration.jpegOptions
            $0.pngOptions = configuration.pngOptions
            $0.webpOptions = configuration.webpOptions
        }
        defer { Task { await harness.stop() } }
        let jpeg = try #require(try await get(harness, "q:50", ext: "jpg"))
        #expect(Self.startOfFrame(jpeg)?.marker == 0xC2)
        let baseline = try #require(try await get(harness, "q:50/jpgo:0", ext: "jpg"))
        #expect(Self.startOfFrame(baseline)?.marker == 0xC0)
        let png = try #require(try await get(harness, "", ext: "png"))
        #expect(Self.chunks(png).first { $0.type == "IHDR" }?.body[12] == 1)
        let webp = try #require(try await get(harness, "", ext: "webp"))
        #expect(String(decoding: webp[12..<16], as: UTF8.self) == "VP8L")
        let lossy = try #require(try await get(harness, "webpo:lossy", ext: "webp"))
        #expect(String(decoding: lossy[12..<16], as: UTF8.self) == "VP8 ")
    }

    @Test("Given hostile jpeg_options, png_options or webp_options, then 400 names the option")
    func hostileValues() async throws {
        let harness = try await Self.start()
        defer { Task { await harness.stop() } }
        let hostile = [
            "jpgo:maybe", "jpgo:1:1:1:1:1:9", "jpgo:1:1:1:1:1:-1", "jpgo:1:1:1:1:1:nan", "jpgo:1:1:1:1:1:1:1", "jpgo::::::99999999999999999999",
            "jpeg_options:2", "pngo:x", "pngo::1:1", "pngo::1:257", "pngo::1:1e9", "pngo::1:-16", "pngo::1:nan", "pngo:1:1:16:1",
            "webpo:lossy2", "webpo::maybe", "webpo:::photos", "webpo:1:2:3:4", "webpo:LOSSLESS", "webp_options:nan",
        ]
        for options in hostile {
            let reply = try await harness.get(harness.plainPath("/src.png", options: options, ext: "png"))
            #expect(reply.status == 400, "\(options) → \(reply.status) \(reply.text)")
            #expect(reply.text.contains(String(options.prefix { $0 != ":" })), "\(options): \(reply.text)")
        }
    }
}
