import Foundation
import WebImage

/// One input of the demo and what it is meant to show.
struct DemoSample {
    /// What the demo expects of a sample.
    enum Kind {
        /// A valid image: decodes when a registered coder claims it, otherwise its header is
        /// still read (format and size) and decoding fails as unsupported.
        case valid
        /// A broken or hostile file: must fail cleanly with a typed error.
        case malformed
    }

    var label: String
    var name: String
    var data: Data
    var kind: Kind

    /// Picks the demo's inputs from the corpus (`$WEBIMAGE_CORPUS`, or `../shared/corpus` from
    /// the current directory), `nil` when it is not there.
    static func fromCorpus() -> [DemoSample]? {
        guard let root = corpusRoot() else { return nil }
        let picks: [(String, String, Kind)] = [
            ("JPEG", "sdwebimage/TestImage.jpg", .valid),
            ("JPEG, EXIF orientation 6", "exif-orientation/Landscape_6.jpg", .valid),
            ("JPEG, progressive 18 MP", "sdwebimage/TestImageLarge.jpg", .valid),
            ("PNG", "sdwebimage/TestImage.png", .valid),
            ("APNG, 6 frames", "generated-valid/anim_6f_64x48.apng", .valid),
            ("GIF, animated", "sdwebimage/TestImage.gif", .valid),
            ("WebP, still", "sdwebimage/TestImageStatic.webp", .valid),
            ("WebP, animated", "generated-valid/anim_6f_lossy_64x48.webp", .valid),
            ("HEIC", "generated-valid/still_64x48.heic", .valid),
            ("AVIF, animated", "generated-valid/anim_6f_64x48.avif", .valid),
            ("JPEG XL", "sdwebimage/TestHDR.jxl", .valid),
            ("HTML page named .jpg", "malformed/generated/html_404_named.jpg", .malformed),
            ("PNG bomb 100000x100000", "malformed/generated/png_bomb_header_100000x100000_rgba.png", .malformed),
        ]
        let samples = picks.compactMap { label, path, kind -> DemoSample? in
            guard let data = try? Data(contentsOf: root.appendingPathComponent(path)) else { return nil }
            return DemoSample(label: label, name: (path as NSString).lastPathComponent, data: data, kind: kind)
        }
        return samples.isEmpty ? nil : samples
    }

    /// `$WEBIMAGE_CORPUS`, else `../shared/corpus` from the current directory, when it is a directory.
    static func corpusRoot() -> URL? {
        let environment = ProcessInfo.processInfo.environment["WEBIMAGE_CORPUS"]
        let path = environment.flatMap { $0.isEmpty ? nil : $0 } ?? "../shared/corpus"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return nil
        }
        return URL(fileURLWithPath: path, isDirectory: true)
    }

    /// Makes the demo's inputs in memory: gradients encoded with every registered encoder (a
    /// still per format, an animation for GIF and WebP, a JPEG with an EXIF orientation tag), a
    /// BMP (header only: no BMP coder is built in) and a malformed file.
    static func generated(coders: CodersManager = .shared) -> [DemoSample] {
        var samples: [DemoSample] = []
        let still = Image(pixels: gradient(width: 96, height: 64, phase: 0), hasAlpha: false)
        for format in [ImageFormat.jpeg, .png, .gif, .webp] where coders.canEncode(format) {
            if let data = try? coders.encode(still, format: format, options: .default) {
                samples.append(DemoSample(
                    label: "\(format.rawValue.uppercased()), generated", name: "gradient.\(format.fileExtension)",
                    data: data, kind: .valid))
                if format == .jpeg {
                    samples.append(DemoSample(
                        label: "JPEG, EXIF orientation 6", name: "gradient-rotated.jpg",
                        data: insertingOrientation(6, intoJPEG: data), kind: .valid))
                }
            }
        }
        let frames = (0..<4).map { ImageFrame(pixels: gradient(width: 64, height: 48, phase: $0 * 16), duration: 0.1) }
        let animation = Image(frames: frames, loopCount: 0, hasAlpha: false)
        for format in [ImageFormat.gif, .webp] where coders.canEncode(format) {
            if let data = try? coders.encode(animation, format: format, options: .default) {
                samples.append(DemoSample(
                    label: "\(format.rawValue.uppercased()), animated, generated",
                    name: "animation.\(format.fileExtension)", data: data, kind: .valid))
            }
        }
        samples.append(DemoSample(label: "BMP, generated", name: "gradient.bmp", data: bmp(still.pixels), kind: .valid))
        samples.append(DemoSample(
            label: "HTML page named .jpg", name: "not-an-image.jpg",
            data: Data("<!DOCTYPE html><html><body>404 Not Found</body></html>".utf8), kind: .malformed))
        return samples
    }

    /// An opaque diagonal gradient shifted by `phase`.
    static func gradient(width: Int, height: Int, phase: Int) -> PixelBuffer {
        PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let i = (y * width + x) * 4
                    out[i] = UInt8((x * 255 / max(1, width - 1) + phase) % 256)
                    out[i + 1] = UInt8(y * 255 / max(1, height - 1))
                    out[i + 2] = UInt8((x + y + phase * 2) % 256)
                    out[i + 3] = 255
                }
            }
        }
    }

    /// `jpeg` with an `APP1` EXIF segment holding only the orientation tag, right after SOI.
    static func insertingOrientation(_ value: Int, intoJPEG jpeg: Data) -> Data {
        // TIFF header (big-endian), IFD0 with one SHORT entry: 0x0112 = value.
        let tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, UInt8(value), 0, 0, 0, 0, 0, 0]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let length = payload.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
        var result = Data(jpeg.prefix(2))
        result.append(contentsOf: segment)
        result.append(jpeg.dropFirst(2))
        return result
    }

    /// A 24-bit bottom-up BMP of `pixels` (alpha dropped).
    static func bmp(_ pixels: PixelBuffer) -> Data {
        func le32(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)] }
        let rowBytes = (pixels.width * 3 + 3) / 4 * 4
        let imageBytes = rowBytes * pixels.height
        var data = Array("BM".utf8) + le32(54 + imageBytes) + le32(0) + le32(54)
        data += le32(40) + le32(pixels.width) + le32(pixels.height) + [1, 0, 24, 0] + le32(0) + le32(imageBytes)
        data += le32(2835) + le32(2835) + le32(0) + le32(0)
        for y in stride(from: pixels.height - 1, through: 0, by: -1) {
            var row: [UInt8] = []
            row.reserveCapacity(rowBytes)
            for x in 0..<pixels.width {
                let p = pixels.pixel(x: x, y: y)
                row += [p.b, p.g, p.r]
            }
            row += Array(repeating: 0, count: rowBytes - row.count)
            data += row
        }
        return Data(data)
    }
}
