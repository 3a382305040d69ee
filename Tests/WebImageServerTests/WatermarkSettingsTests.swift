import Foundation
import Testing
import WebImage

@testable import WebImageServer

/// The `watermark-*` settings, as flags, `WEBIMAGE_*` variables and configuration-file lines.
struct WatermarkSettingsTests {
    private static let png: Data = {
        let pixels = PixelBuffer.make(width: 4, height: 3) { out in
            for index in stride(from: 0, to: out.count, by: 4) { out[index + 2] = 255; out[index + 3] = 255 }
        }
        return try! CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: false), format: .png, options: EncodeOptions())
    }()

    @Test("Given watermark-path, -data or -url with opacity and TTL, then the configuration carries them")
    func settings() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-watermark-\(UUID().uuidString).png")
        try Self.png.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fromPath = try ImageServiceSettings.configuration(from: ["watermark-path": [file.path], "watermark-opacity": ["0.4"]]).0
        #expect(fromPath.watermark == .data(Self.png) && fromPath.watermarkOpacity == 0.4)

        let environment = ImageServiceSettings.values(fromEnvironment: ["WEBIMAGE_WATERMARK_DATA": Self.png.base64EncodedString()])
        #expect(try ImageServiceSettings.configuration(from: environment).0.watermark == .data(Self.png))

        let file2 = try ImageServiceSettings.values(fromConfigFile: "watermark-url = https://example.com/mark.png\nwatermark-url-ttl = 60\n")
        let fromURL = try ImageServiceSettings.configuration(from: file2).0
        #expect(fromURL.watermark == .url("https://example.com/mark.png") && fromURL.watermarkURLTTL == 60)
        let defaults = try ImageServiceSettings.configuration(from: [:]).0
        #expect(defaults.watermark == nil && defaults.watermarkOpacity == 1 && defaults.watermarkURLTTL == 3600)
    }

    @Test("Given a bad watermark setting, then the start is refused naming it")
    func badSettings() {
        let bad: [[String: [String]]] = [
            ["watermark-path": ["/nonexistent/mark.png"]], ["watermark-data": ["not base64!"]], ["watermark-data": ["aGVsbG8="]],
            ["watermark-url": ["ftp://example.com/mark.png"]], ["watermark-opacity": ["1.5"]], ["watermark-url-ttl": ["0"]],
            ["watermark-url": ["https://example.com/a.png"], "watermark-data": [Self.png.base64EncodedString()]],
        ]
        for values in bad {
            #expect(throws: ImageServiceSettings.Problem.self, "\(values)") { try ImageServiceSettings.configuration(from: values) }
        }
    }
}
