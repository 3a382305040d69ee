import Foundation
import Testing
import WebImageCore

@Suite("Format sniffing (I-3)")
struct ImageFormatTests {
    @Test("Given magic bytes, when sniffed, then the format is recognised", arguments: [
        ([0xFF, 0xD8, 0xFF, 0xE0], ImageFormat.jpeg),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0], .png),
        (Array("GIF89a....".utf8), .gif),
        (Array("RIFF\u{0}\u{0}\u{0}\u{0}WEBPVP8 ".utf8), .webp),
        ([0, 0, 0, 0x18] + Array("ftypavif\u{0}\u{0}\u{0}\u{0}mif1".utf8), .avif),
        ([0, 0, 0, 0x18] + Array("ftypheic\u{0}\u{0}\u{0}\u{0}mif1".utf8), .heic),
        ([0, 0, 0, 0x14] + Array("ftypmif1\u{0}\u{0}\u{0}\u{0}".utf8), .heif),
        ([0x49, 0x49, 0x2A, 0x00], .tiff),
        (Array("%PDF-1.4".utf8), .pdf),
        ([0xFF, 0x0A, 0x00], .jxl),
        (Array("<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8), .svg),
        (Array("<html><body>404</body></html>".utf8), .unknown),
        ([], .unknown),
    ] as [([UInt8], ImageFormat)])
    func sniff(bytes: [UInt8], expected: ImageFormat) {
        #expect(ImageFormat.detect(Data(bytes)) == expected)
    }

    @Test("Given a file name, when parsed, then the format follows the extension")
    func names() {
        #expect(ImageFormat(name: "JPG") == .jpeg)
        #expect(ImageFormat(name: "webp") == .webp)
        #expect(ImageFormat(name: "txt") == nil)
    }

    @Test("Given @2x/@3x names, then the scale is read from the suffix")
    func scaleSuffix() {
        #expect(Image.scale(fromFileName: "icon@2x.png") == 2)
        #expect(Image.scale(fromFileName: "/a/b/icon@3x.jpg") == 3)
        #expect(Image.scale(fromFileName: "icon.png") == nil)
        #expect(Image.scale(fromFileName: "me@home.png") == nil)
    }
}
