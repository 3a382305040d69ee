import Foundation
import Testing
import WebImageCore

private struct FakeCoder: ImageCoder {
    let name: UInt8
    let accepts: Bool
    func canDecode(_ data: Data) -> Bool { accepts }
    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        Image(pixels: PixelBuffer(width: 1, height: 1, bytes: [name, 0, 0, 255]))
    }
}

@Suite("Coders manager (C-2)")
struct CodersManagerTests {
    @Test("Given two coders for the same data, when decoding, then the last added wins")
    func lastAddedFirst() throws {
        let manager = CodersManager(coders: [FakeCoder(name: 1, accepts: true)])
        manager.addCoder(FakeCoder(name: 2, accepts: true))
        #expect(try manager.decode(Data([1]), options: .default).pixels.pixel(x: 0, y: 0).r == 2)
        manager.removeCoders { ($0 as? FakeCoder)?.name == 2 }
        #expect(try manager.decode(Data([1]), options: .default).pixels.pixel(x: 0, y: 0).r == 1)
    }

    @Test("Given no coder accepts, when decoding, then a typed error says why")
    func noCoder() {
        let manager = CodersManager(coders: [FakeCoder(name: 1, accepts: false)])
        #expect(throws: WebImageError.self) { try manager.decode(Data("hello".utf8), options: .default) }
        #expect(throws: WebImageError.self) { try manager.decode(Data(), options: .default) }
        #expect(throws: WebImageError.self) { try manager.encode(Image(pixels: PixelBuffer(width: 1, height: 1, bytes: [0, 0, 0, 0])), format: .png, options: .default) }
    }
}
