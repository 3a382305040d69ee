import CTIFF
import Foundation
import Testing
@testable import WebImageCodecs
import WebImageCore
import WebImageTesting

/// Thumbnails of TIFF pages shrunk while reading (`decodeCurrentShrinking`): bands of strips or
/// tile rows averaged block by block, never the whole page in memory.
@Suite("TIFF shrink-on-load")
struct TIFFShrinkTests {
    static let width = 240
    static let height = 160

    static func samples(alpha: Bool) -> [UInt8] {
        (0..<height).flatMap { y in
            (0..<width).flatMap { x -> [UInt8] in
                let rgb = [UInt8(x * 255 / (width - 1)), UInt8(y * 255 / (height - 1)), UInt8((x * 7 + y * 5) % 256)]
                return alpha ? rgb + [UInt8(30 + (x / 10) * 9)] : rgb
            }
        }
    }

    /// `buffer` averaged over `factor`×`factor` blocks (premultiplied, edge blocks partial), straight alpha.
    static func boxAverage(_ buffer: PixelBuffer, factor: Int) -> PixelBuffer {
        let outWidth = (buffer.width + factor - 1) / factor
        let outHeight = (buffer.height + factor - 1) / factor
        var bytes = [UInt8](repeating: 0, count: outWidth * outHeight * 4)
        for oy in 0..<outHeight {
            for ox in 0..<outWidth {
                var sums = [0, 0, 0, 0]
                var count = 0
                for y in oy * factor..<min(buffer.height, oy * factor + factor) {
                    for x in ox * factor..<min(buffer.width, ox * factor + factor) {
                        let p = buffer.pixel(x: x, y: y)
                        let a = Int(p.a)
                        sums[0] += (Int(p.r) * a + 127) / 255
                        sums[1] += (Int(p.g) * a + 127) / 255
                        sums[2] += (Int(p.b) * a + 127) / 255
                        sums[3] += a
                        count += 1
                    }
                }
                let average = sums.map { ($0 + count / 2) / count }
                let a = average[3]
                for c in 0..<3 { bytes[(oy * outWidth + ox) * 4 + c] = UInt8(a == 0 ? 0 : min(255, (average[c] * 255 + a / 2) / a)) }
                bytes[(oy * outWidth + ox) * 4 + 3] = UInt8(a)
            }
        }
        return PixelBuffer(width: outWidth, height: outHeight, bytes: bytes)
    }

    static func premultiplied(_ buffer: PixelBuffer) -> PixelBuffer {
        var bytes = buffer.bytes
        for i in stride(from: 0, to: bytes.count, by: 4) {
            let a = Int(bytes[i + 3])
            for c in i..<i + 3 { bytes[c] = UInt8((Int(bytes[c]) * a + 127) / 255) }
        }
        return PixelBuffer(width: buffer.width, height: buffer.height, bytes: bytes)
    }

    @Test(
        "Given strips and tiles, opaque or with alpha, then the page shrunk while reading equals the block average of the full decode",
        arguments: [(nil, false), (16, false), (nil, true), (16, true)] as [(Int?, Bool)])
    func shrunk(tile: Int?, alpha: Bool) throws {
        let page = TIFFTestPage(
            width: Self.width, height: Self.height, samplesPerPixel: alpha ? 4 : 3, compression: COMPRESSION_ADOBE_DEFLATE,
            extraSample: alpha ? EXTRASAMPLE_UNASSALPHA : nil, tileSize: tile, rowsPerStrip: 8, samples: Self.samples(alpha: alpha))
        let data = try TIFFTestWriter.write([page])
        let full = try TIFFCoder().decode(data, options: .default).pixels
        let file = try TIFFMemoryFile(data)
        let pages = try file.pages(limits: .default)
        let size = pages[0].size
        let shrunk = try #require(try file.decodeCurrentShrinking(size: size, by: 5), "banding applies")
        #expect(shrunk.width == 48 && shrunk.height == 32)
        let expected = Self.boxAverage(full, factor: 5)
        let difference = try #require(PixelDifference.between(Self.premultiplied(shrunk), Self.premultiplied(expected)))
        #expect(difference.maxChannelDifference <= (alpha ? 2 : 1), "\(difference)")
        // A single strip for the whole page: no band would save memory, the page is decoded whole.
        var single = page
        single.tileSize = nil
        single.rowsPerStrip = Self.height
        let one = try TIFFMemoryFile(try TIFFTestWriter.write([single]))
        _ = try one.pages(limits: .default)
        #expect(try one.decodeCurrentShrinking(size: size, by: 5) == nil)
    }

    @Test("Given a thumbnail of a tiled page through the coder, then it is close to the full decode resampled, orientation applied")
    func throughCoder() throws {
        var page = TIFFTestPage(
            width: Self.width, height: Self.height, compression: COMPRESSION_LZW, tileSize: 16, samples: Self.samples(alpha: false))
        page.orientation = 6
        let data = try TIFFTestWriter.write([page])
        let box = PixelSize(width: 30, height: 30)
        let thumb = try TIFFCoder().decode(data, options: DecodeOptions(thumbnailPixelSize: box))
        #expect(thumb.pixelSize == PixelSize(width: 20, height: 30))
        let reference = try TIFFCoder().decode(data, options: .default).pixels.thumbnail(to: thumb.pixelSize)
        let difference = try #require(PixelDifference.between(thumb.pixels, reference))
        #expect(difference.psnr >= 30, "\(difference)")
    }
}
