import Foundation

/// Small PDF files written byte by byte for tests and the fuzzer: pages of a given size (in
/// points) whose content streams the caller writes (`1 0 0 rg 0 0 50 50 re f` …), with a
/// correct cross-reference table.
public enum TestPDF {
    /// One page: its media box size in points and its content stream.
    public struct Page: Sendable {
        public var width: Int
        public var height: Int
        public var content: String

        public init(width: Int, height: Int, content: String) {
            self.width = width
            self.height = height
            self.content = content
        }
    }

    /// A document of `pages`. With `encrypted`, the trailer names a standard security handler
    /// whose password is not empty, so a reader without the password cannot open it.
    public static func make(_ pages: [Page], encrypted: Bool = false) -> Data {
        var objects: [String] = []
        let kids = pages.indices.map { "\(3 + 2 * $0) 0 R" }.joined(separator: " ")
        objects.append("<< /Type /Catalog /Pages 2 0 R >>")
        objects.append("<< /Type /Pages /Kids [\(kids)] /Count \(pages.count) >>")
        for (index, page) in pages.enumerated() {
            objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(page.width) \(page.height)] /Contents \(4 + 2 * index) 0 R >>")
            objects.append("<< /Length \(page.content.utf8.count) >>\nstream\n\(page.content)\nendstream")
        }
        var encryptReference = ""
        if encrypted {
            let hex = String(repeating: "5A3C", count: 16)
            objects.append("<< /Filter /Standard /V 1 /R 2 /Length 40 /O <\(hex)> /U <\(hex)> /P -4 >>")
            encryptReference = " /Encrypt \(objects.count) 0 R /ID [<00112233445566778899AABBCCDDEEFF> <00112233445566778899AABBCCDDEEFF>]"
        }
        var text = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(text.utf8.count)
            text += "\(index + 1) 0 obj\n\(object)\nendobj\n"
        }
        let xref = text.utf8.count
        text += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { text += String(format: "%010d 00000 n \n", offset) }
        text += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R\(encryptReference) >>\nstartxref\n\(xref)\n%%EOF\n"
        return Data(text.utf8)
    }

    /// Two pages: 200×100 points, left half red, right half white; then 100×300, all blue.
    public static var twoPages: Data {
        make([
            Page(width: 200, height: 100, content: "1 0 0 rg 0 0 100 100 re f"),
            Page(width: 100, height: 300, content: "0 0 1 rg 0 0 100 300 re f"),
        ])
    }
}
