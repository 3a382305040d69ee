import Foundation
import Testing
import WebImageCodecs
import WebImageCore

/// Extended WebP files with an `EXIF` chunk, built here from a simple lossless file (no corpus
/// file carries one).
enum WebPEXIFFixture {
    /// A TIFF block holding only the orientation tag.
    static func tiff(orientation: UInt16, littleEndian: Bool) -> Data {
        func u16(_ value: UInt16) -> [UInt8] {
            littleEndian ? [UInt8(value & 0xFF), UInt8(value >> 8)] : [UInt8(value >> 8), UInt8(value & 0xFF)]
        }
        func u32(_ value: UInt32) -> [UInt8] {
            let bytes = (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
            return littleEndian ? bytes : bytes.reversed()
        }
        var bytes: [UInt8] = littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
        bytes += u16(42) + u32(8) + u16(1)
        bytes += u16(0x0112) + u16(3) + u32(1) + u16(orientation) + [0, 0]
        bytes += u32(0)
        return Data(bytes)
    }

    /// One RIFF chunk, padded to an even size.
    static func chunk(_ fourCC: String, _ payload: Data) -> Data {
        var data = Data(fourCC.utf8)
        let size = UInt32(payload.count)
        data.append(contentsOf: (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) })
        data.append(payload)
        if payload.count % 2 == 1 { data.append(0) }
        return data
    }

    /// `simple` (a `RIFF`/`WEBP` file with one image chunk) rewrapped as an extended file with
    /// `exif` after the image data, and `declaredEXIFSize` (if given) claimed for that chunk.
    static func extended(_ simple: Data, width: Int, height: Int, exif: Data, declaredEXIFSize: UInt32? = nil) -> Data {
        let image = simple.subdata(in: simple.startIndex + 12..<simple.endIndex)
        var header = Data([WebPEXIFFixtureFlags.exif, 0, 0, 0])
        for value in [width - 1, height - 1] {
            header.append(contentsOf: (0..<3).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) })
        }
        var exifChunk = chunk("EXIF", exif)
        if let declaredEXIFSize {
            exifChunk.replaceSubrange(4..<8, with: (0..<4).map { UInt8(truncatingIfNeeded: declaredEXIFSize >> (8 * $0)) })
        }
        let body = Data("WEBP".utf8) + chunk("VP8X", header) + image + exifChunk
        let riffSize = UInt32(body.count)
        return Data("RIFF".utf8) + Data((0..<4).map { UInt8(truncatingIfNeeded: riffSize >> (8 * $0)) }) + body
    }
}

private enum WebPEXIFFixtureFlags {
    static let exif: UInt8 = 0x08
}

@Suite("WebP EXIF orientation")
struct WebPOrientationTests {
    let coder = WebPCoder()
    let width = 6, height = 4

    /// An opaque pattern with no symmetry and its simple lossless file.
    private func simpleFile() throws -> (PixelBuffer, Data) {
        let pixels = PNGEncodeTests.pattern(width: width, height: height, seed: 3, alpha: false)
        let data = try coder.encode(Image(pixels: pixels), format: .webp, options: EncodeOptions(lossless: true))
        try #require(data.count > 16 && String(decoding: data[12..<16], as: UTF8.self) == "VP8L")
        return (pixels, data)
    }

    @Test("Given each EXIF orientation (both byte orders, with and without the Exif prefix), then metadata reports it, decode applies it, and applyOrientation off keeps the stored pixels", arguments: 1...8)
    func appliesOrientation(_ value: Int) throws {
        let (stored, simple) = try simpleFile()
        let orientation = try #require(ImageOrientation(rawValue: value))
        var exif = WebPEXIFFixture.tiff(orientation: UInt16(value), littleEndian: value % 2 == 0)
        if value % 3 == 0 { exif = Data("Exif".utf8) + Data([0, 0]) + exif }
        let file = WebPEXIFFixture.extended(simple, width: width, height: height, exif: exif)

        let metadata = try coder.readMetadata(file)
        #expect(metadata.orientation == orientation)
        #expect(metadata.pixelSize == PixelSize(width: width, height: height))

        let upright = try coder.decode(file, options: .default)
        #expect(upright.orientation == .up)
        #expect(upright.pixels.bytes == stored.applying(orientation).bytes)
        #expect(upright.pixels.width == (orientation.swapsDimensions ? height : width))

        let asStored = try coder.decode(file, options: DecodeOptions(applyOrientation: false))
        #expect(asStored.orientation == orientation)
        #expect(asStored.pixels.bytes == stored.bytes)
    }

    @Test("Given a turned image and a thumbnail box, then the box applies to the image as shown")
    func thumbnailOfTurnedImage() throws {
        let pixels = PNGEncodeTests.pattern(width: 60, height: 40, seed: 1, alpha: false)
        let simple = try coder.encode(Image(pixels: pixels), format: .webp, options: EncodeOptions(lossless: true))
        let file = WebPEXIFFixture.extended(simple, width: 60, height: 40, exif: WebPEXIFFixture.tiff(orientation: 6, littleEndian: true))
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 30, height: 30))
        let thumbnail = try coder.decode(file, options: options)
        #expect(thumbnail.pixelSize == options.targetSize(for: PixelSize(width: 40, height: 60)))
        #expect(thumbnail.pixelSize.height == 30)
        #expect(thumbnail.orientation == .up)
    }

    @Test("Given a file announcing EXIF, when fed progressively, then no partial image appears and the final image is turned")
    func progressiveWaitsForEXIF() throws {
        let (stored, simple) = try simpleFile()
        let file = WebPEXIFFixture.extended(simple, width: width, height: height, exif: WebPEXIFFixture.tiff(orientation: 8, littleEndian: false))
        let decoder = coder.makeIncrementalDecoder(options: .default)
        for end in stride(from: 8, to: file.count, by: 7) {
            #expect(try decoder.update(file.prefix(end), isComplete: false) == nil)
        }
        let final = try #require(try decoder.update(file, isComplete: true))
        #expect(final.pixels.bytes == stored.applying(.left).bytes)
    }

    @Test("Given an EXIF chunk whose size runs past the end, or a malformed TIFF block, then orientation is up and nothing crashes")
    func hostileEXIF() throws {
        let (_, simple) = try simpleFile()
        let tiff = WebPEXIFFixture.tiff(orientation: 6, littleEndian: true)
        let overlong = WebPEXIFFixture.extended(simple, width: width, height: height, exif: tiff, declaredEXIFSize: 0xFFFF_FFF0)
        #expect(try coder.readMetadata(overlong).orientation == .up)
        let garbage = WebPEXIFFixture.extended(simple, width: width, height: height, exif: Data(repeating: 0x4D, count: 9))
        #expect(try coder.readMetadata(garbage).orientation == .up)
        #expect(try coder.decode(garbage, options: .default).orientation == .up)
        for end in 0..<overlong.count {
            _ = try? coder.readMetadata(overlong.prefix(end))
        }
    }
}
