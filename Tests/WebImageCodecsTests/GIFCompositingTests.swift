import Foundation
import Testing
import WebImageCodecs
import WebImageCore

/// Builds small GIFs block by block, to test compositing rules frame by frame.
struct GIFTestBuilder {
    var bytes: [UInt8]

    /// A GIF89a with a `width`×`height` screen and a 4-colour global palette: black, red, green, blue.
    init(width: Int, height: Int) {
        bytes = Array("GIF89a".utf8) + [UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8)]
        bytes += [0x81, 0, 0]  // global colour table of 4 entries
        bytes += [0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255]
    }

    mutating func loop(_ count: Int) {
        bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1, UInt8(count & 0xFF), UInt8(count >> 8), 0]
    }

    mutating func frame(x: Int, y: Int, width: Int, height: Int, indices: [UInt8], disposal: UInt8 = 1,
                        transparent: UInt8? = nil, delay: Int = 10, interlaced: Bool = false) {
        let packed = disposal << 2 | (transparent == nil ? 0 : 1)
        bytes += [0x21, 0xF9, 4, packed, UInt8(delay & 0xFF), UInt8(delay >> 8), transparent ?? 0, 0]
        bytes += [0x2C, UInt8(x & 0xFF), UInt8(x >> 8), UInt8(y & 0xFF), UInt8(y >> 8)]
        bytes += [UInt8(width & 0xFF), UInt8(width >> 8), UInt8(height & 0xFF), UInt8(height >> 8), interlaced ? 0x40 : 0]
        bytes += gifLZWData(indices: indices, minimumCodeSize: 2)
    }

    var data: Data { Data(bytes + [0x3B]) }
}

@Suite("GIF compositing")
struct GIFCompositingTests {
    let coder = GIFCoder()
    static let black = RGBA(r: 0, g: 0, b: 0)
    static let red = RGBA(r: 255, g: 0, b: 0)
    static let green = RGBA(r: 0, g: 255, b: 0)
    static let blue = RGBA(r: 0, g: 0, b: 255)
    static let clear = RGBA(r: 0, g: 0, b: 0, a: 0)

    /// The 4×4 canvas as colours, row by row.
    func colors(_ pixels: PixelBuffer) -> [RGBA] {
        (0..<pixels.height).flatMap { y in (0..<pixels.width).map { x in pixels.pixel(x: x, y: y) } }
    }

    @Test("Given frames with keep, restore-previous, restore-background, transparency and out-of-bounds rectangles, then each composited frame is what browsers show")
    func disposalSequence() throws {
        var gif = GIFTestBuilder(width: 4, height: 4)
        gif.loop(0)
        gif.frame(x: 0, y: 0, width: 4, height: 4, indices: Array(repeating: 1, count: 16), disposal: 1)
        gif.frame(x: 0, y: 0, width: 2, height: 2, indices: [2, 2, 2, 2], disposal: 3)
        gif.frame(x: 2, y: 2, width: 2, height: 2, indices: [3, 3, 3, 3], disposal: 2)
        gif.frame(x: 3, y: 0, width: 1, height: 1, indices: [0], disposal: 0, transparent: 0)
        gif.frame(x: 2, y: 2, width: 4, height: 4, indices: Array(repeating: 2, count: 16), disposal: 0, delay: 0)
        let image = try coder.decode(gif.data, options: .default)
        #expect(image.frames.count == 5)
        #expect(image.loopCount == 0)
        let (R, G, B, C) = (Self.red, Self.green, Self.blue, Self.clear)
        #expect(colors(image.frames[0].pixels) == Array(repeating: R, count: 16))
        #expect(colors(image.frames[1].pixels) == [G, G, R, R, G, G, R, R, R, R, R, R, R, R, R, R])
        #expect(colors(image.frames[2].pixels) == [R, R, R, R, R, R, R, R, R, R, B, B, R, R, B, B])
        #expect(colors(image.frames[3].pixels) == [R, R, R, R, R, R, R, R, R, R, C, C, R, R, C, C])
        #expect(colors(image.frames[4].pixels) == [R, R, R, R, R, R, R, R, R, R, G, G, R, R, G, G])
        #expect(image.frames.map(\.duration) == [0.1, 0.1, 0.1, 0.1, 0.1])
        #expect(image.hasAlpha)
    }

    @Test("Given an interlaced frame, then rows land in their de-interlaced positions")
    func interlacedRows() throws {
        // 1×8 frame: interlaced order is rows 0, 4, 2, 6, 1, 3, 5, 7. Colour = row % 4.
        var gif = GIFTestBuilder(width: 1, height: 8)
        let rowOrder = [0, 4, 2, 6, 1, 3, 5, 7]
        gif.frame(x: 0, y: 0, width: 1, height: 8, indices: rowOrder.map { UInt8($0 % 4) }, interlaced: true)
        let image = try coder.decode(gif.data, options: .default)
        let palette = [Self.black, Self.red, Self.green, Self.blue]
        #expect(colors(image.pixels) == (0..<8).map { palette[$0 % 4] })
    }

    @Test("Given a frame entirely outside the screen, then the canvas is unchanged")
    func frameOutside() throws {
        var gif = GIFTestBuilder(width: 2, height: 2)
        gif.frame(x: 0, y: 0, width: 2, height: 2, indices: [1, 1, 1, 1])
        gif.frame(x: 10, y: 10, width: 2, height: 2, indices: [2, 2, 2, 2])
        let image = try coder.decode(gif.data, options: .default)
        #expect(image.frames.count == 2)
        #expect(colors(image.frames[1].pixels) == Array(repeating: Self.red, count: 4))
    }

    @Test("Given a logical screen of 0×0, then the canvas is the first frame's extent")
    func zeroScreen() throws {
        var gif = GIFTestBuilder(width: 0, height: 0)
        gif.frame(x: 1, y: 0, width: 2, height: 1, indices: [3, 3])
        let image = try coder.decode(gif.data, options: .default)
        #expect(image.pixelSize == PixelSize(width: 3, height: 1))
        #expect(colors(image.pixels) == [Self.clear, Self.blue, Self.blue])
    }
}

@Suite("GIF frame limits")
struct GIFFrameLimitTests {
    @Test("Given a small screen with a frame declaring more pixels than the limit, then imageTooLarge is thrown before decoding it")
    func oversizedFrameDeclaration() throws {
        var gif = GIFTestBuilder(width: 2, height: 2)
        gif.frame(x: 0, y: 0, width: 2, height: 2, indices: [1, 1, 1, 1])
        gif.frame(x: 0, y: 0, width: 5_000, height: 5_000, indices: [2])
        var limits = DecodeLimits()
        limits.maxPixelCount = 1_000_000
        #expect {
            _ = try GIFCoder().decode(gif.data, options: DecodeOptions(limits: limits))
        } throws: { error in
            guard case WebImageError.imageTooLarge = error else { return false }
            return true
        }
        // The lazy source refuses that frame when it gets there.
        let source = try GIFCoder().makeAnimatedSource(gif.data, options: DecodeOptions(limits: limits))
        _ = try source.frame(at: 0)
        #expect(throws: WebImageError.self) { _ = try source.frame(at: 1) }
    }
}
