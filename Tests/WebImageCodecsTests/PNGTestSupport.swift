import Foundation
import WebImageCore
import WebImageTesting

/// Corpus selections and helpers shared by the PNG tests.
enum PNGCorpus {
    /// Every PNG/APNG input of the manifest outside the fuzz seeds.
    static let inputs: [CorpusEntry] = Corpus.entries { entry in
        entry.format.lowercased() == "png" && entry.isInput && !entry.path.hasPrefix("fuzz-png-seeds/")
    }

    static var mustDecode: [CorpusEntry] { inputs.filter(\.mustDecode) }
    static var mustFail: [CorpusEntry] { inputs.filter(\.mustFail) }

    /// Corpus inputs that have reference renderings (APNGs, png-misc, png-regressions).
    static var withReferences: [String] {
        mustDecode.map(\.path).filter { path in
            ["apng/", "png-misc/", "png-regressions/"].contains { path.hasPrefix($0) }
                && !Corpus.referenceRenderings(for: path).isEmpty
        }
    }

    /// Every file under `fuzz-png-seeds/`.
    static let fuzzSeeds: [String] = Corpus.entries(under: "fuzz-png-seeds/").map(\.path)

    /// Whether `data` is an APNG whose default image is not part of the animation (`acTL`
    /// before `IDAT`, no `fcTL` before `IDAT`). Pillow, which made the manifest, counts such a
    /// hidden default image as an extra frame; the APNG spec and browsers do not. Written here
    /// independently of the coder's parser.
    static func hasHiddenDefaultImage(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        var offset = 8
        var sawACTL = false
        while offset + 8 <= bytes.count {
            let length = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            switch type {
            case "acTL": sawACTL = true
            case "fcTL": return false
            case "IDAT": return sawACTL
            default: break
            }
            offset += 12 + length
        }
        return false
    }
}
