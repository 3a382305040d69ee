import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

private let orientationFiles = (1...8).map { "exif-orientation/Landscape_\($0).jpg" }

/// Points inside each quadrant of the upright 600×450 image, away from the central "F".
private let quadrantSamples: [(x: Int, y: Int, colour: RGBA, name: String)] = [
    (75, 56, RGBA(r: 255, g: 0, b: 0), "top-left red"),
    (525, 56, RGBA(r: 0, g: 255, b: 0), "top-right green"),
    (75, 394, RGBA(r: 0, g: 0, b: 255), "bottom-left blue"),
    (525, 394, RGBA(r: 255, g: 255, b: 0), "bottom-right yellow"),
]

private func expectUprightQuadrants(_ pixels: PixelBuffer, scale: Double = 1, file: String) {
    for sample in quadrantSamples {
        let x = Int(Double(sample.x) * scale)
        let y = Int(Double(sample.y) * scale)
        let pixel = pixels.pixel(x: x, y: y)
        #expect(isClose(pixel, sample.colour, tolerance: 16), "\(file): \(sample.name) at (\(x),\(y)) is \(pixel)")
    }
}

@Suite("JPEG EXIF orientation")
struct JPEGOrientationTests {
    let coder = JPEGCoder()

    @Test("Given Landscape_1…8, when decoded with orientation applied, then the image is 600x450 and upright", .enabled(if: Corpus.isAvailable), arguments: orientationFiles)
    func appliesOrientation(path: String) throws {
        let image = try coder.decode(try Corpus.data(path), options: .default)
        #expect(image.pixelSize == PixelSize(width: 600, height: 450), "\(path): \(image.pixelSize)")
        #expect(image.orientation == .up)
        expectUprightQuadrants(image.pixels, file: path)
    }

    @Test("Given Landscape_1…8, when decoded without applying orientation, then pixels are as stored and the tag is reported", .enabled(if: Corpus.isAvailable), arguments: zip(orientationFiles, 1...8))
    func keepsStoredPixels(path: String, value: Int) throws {
        let data = try Corpus.data(path)
        let image = try coder.decode(data, options: DecodeOptions(applyOrientation: false))
        let expectedOrientation = try #require(ImageOrientation(rawValue: value))
        #expect(image.orientation == expectedOrientation)
        let stored = expectedOrientation.swapsDimensions
            ? PixelSize(width: 450, height: 600) : PixelSize(width: 600, height: 450)
        #expect(image.pixelSize == stored)
        // Applying the reported orientation afterwards gives the upright image.
        expectUprightQuadrants(image.pixels.applying(image.orientation), file: path)
        let metadata = try coder.readMetadata(data)
        #expect(metadata.orientation == expectedOrientation)
        #expect(metadata.pixelSize == stored)
        #expect(metadata.displaySize == PixelSize(width: 600, height: 450))
    }

    @Test("Given a rotated JPEG and a thumbnail box, when decoded, then the size is computed on the displayed image", .enabled(if: Corpus.isAvailable), arguments: ["exif-orientation/Landscape_6.jpg", "exif-orientation/Landscape_7.jpg"])
    func thumbnailOfRotatedImage(path: String) throws {
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: 300, height: 300))
        let image = try coder.decode(try Corpus.data(path), options: options)
        #expect(image.pixelSize == PixelSize(width: 300, height: 225))
        expectUprightQuadrants(image.pixels, scale: 0.5, file: path)

        var unapplied = options
        unapplied.applyOrientation = false
        let stored = try coder.decode(try Corpus.data(path), options: unapplied)
        #expect(stored.pixelSize == PixelSize(width: 225, height: 300))
    }
}

@Suite("EXIF orientation parser")
struct EXIFOrientationParserTests {
    /// A TIFF block with one IFD0 entry (tag, type, count, value).
    private func tiff(littleEndian: Bool, tag: UInt16 = 0x0112, type: UInt16 = 3, value: UInt32, ifdOffset: UInt32 = 8, entries: UInt16 = 1) -> Data {
        var bytes: [UInt8] = littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
        func u16(_ v: UInt16) { bytes += littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) {
            let b = [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
            bytes += littleEndian ? b.reversed() : b
        }
        u16(42)
        u32(ifdOffset)
        u16(entries)
        u16(0x0100); u16(4); u32(1); u32(640)  // ImageWidth first, to be skipped
        u16(tag); u16(type); u32(1)
        if type == 3 { u16(UInt16(truncatingIfNeeded: value)); u16(0) } else { u32(value) }
        u32(0)
        return Data(bytes)
    }

    @Test("Given TIFF blocks in both byte orders, when parsed, then the orientation is read")
    func readsBothByteOrders() {
        for value in 1...8 {
            #expect(EXIFOrientation.orientation(fromTIFF: tiff(littleEndian: true, value: UInt32(value), entries: 2))?.rawValue == value)
            #expect(EXIFOrientation.orientation(fromTIFF: tiff(littleEndian: false, value: UInt32(value), entries: 2))?.rawValue == value)
        }
        #expect(EXIFOrientation.orientation(fromTIFF: tiff(littleEndian: true, type: 4, value: 6, entries: 2)) == .right)
    }

    @Test("Given malformed TIFF blocks, when parsed, then the result is nil and nothing crashes")
    func rejectsMalformedBlocks() {
        #expect(EXIFOrientation.orientation(fromTIFF: Data()) == nil)
        #expect(EXIFOrientation.orientation(fromTIFF: Data("II*".utf8)) == nil)
        #expect(EXIFOrientation.orientation(fromTIFF: tiff(littleEndian: true, value: 9, entries: 2)) == nil)
        #expect(EXIFOrientation.orientation(fromTIFF: tiff(littleEndian: true, value: 0, entries: 2)) == nil)
        #expect(EXIFOrientation.orientation(fromTIFF: tiff(littleEndian: true, value: 6, ifdOffset: 0xFFFF_FFFF, entries: 2)) == nil)
        #expect(EXIFOrientation.orientation(fromTIFF: tiff(littleEndian: false, value: 6, ifdOffset: 0x7FFF_FFF0, entries: 2)) == nil)
        // An entry count far beyond the block is capped by the bytes present.
        #expect(EXIFOrientation.orientation(fromTIFF: tiff(littleEndian: true, value: 6, entries: 0xFFFF)) == .right)
        #expect(EXIFOrientation.orientation(fromTIFF: tiff(littleEndian: true, tag: 0x0113, value: 6, entries: 2)) == nil)
        let whole = tiff(littleEndian: true, value: 6, entries: 2)
        for length in 0..<whole.count {
            _ = EXIFOrientation.orientation(fromTIFF: whole.prefix(length))
        }
    }

    @Test("Given a JPEG header with an Exif APP1 segment, when parsed, then the orientation is read")
    func readsFromJPEGSegments() {
        let body = Data("Exif\0\0".utf8) + tiff(littleEndian: false, value: 8, entries: 2)
        let length = body.count + 2
        var jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00])  // a tiny APP0 first
        jpeg += Data([0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)]) + body
        jpeg += Data([0xFF, 0xDA, 0x00, 0x02, 0xFF, 0xD9])
        #expect(EXIFOrientation.orientation(fromJPEG: jpeg) == .left)
        for cut in 0..<jpeg.count {
            _ = EXIFOrientation.orientation(fromJPEG: jpeg.prefix(cut))
        }
        #expect(EXIFOrientation.orientation(fromJPEG: Data([0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02])) == nil)
        #expect(EXIFOrientation.orientation(fromJPEG: Data("not a jpeg".utf8)) == nil)
    }
}
