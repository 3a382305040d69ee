import Foundation
import Testing
@testable import WebImageCodecs
import WebImageCore

/// The table sets of ``JPEGEncodeSettings/quantTable`` and the encoder's refusal of a set that
/// does not exist.
@Suite("JPEG quantisation table sets")
struct JPEGQuantTablesTests {
    @Test("every set has 64 luma and 64 chroma steps, none zero; sets 0, 2 and 4 have chroma tables of their own")
    func shapes() {
        for set in JPEGQuantTables.sets {
            let luma = JPEGQuantTables.table(set, chroma: false)
            let chroma = JPEGQuantTables.table(set, chroma: true)
            #expect(luma.count == 64 && chroma.count == 64, "set \(set)")
            #expect(luma.allSatisfy { $0 >= 1 } && chroma.allSatisfy { $0 >= 1 }, "set \(set)")
            #expect((luma != chroma) == [0, 2, 4].contains(set), "set \(set)")
        }
    }

    @Test("a set outside 0...8 fails the encode in plain words")
    func unknownSet() {
        let pixels = PixelBuffer(width: 8, height: 8, bytes: [UInt8](repeating: 200, count: 8 * 8 * 4))
        var options = EncodeOptions(quality: 0.5)
        options.jpeg = JPEGEncodeSettings(quantTable: 9)
        #expect {
            try CodersManager.shared.encode(Image(pixels: pixels, hasAlpha: false), format: .jpeg, options: options)
        } throws: { error in
            "\(error)".contains("quantisation table set 9 is not one of 0 to 8")
        }
    }
}
