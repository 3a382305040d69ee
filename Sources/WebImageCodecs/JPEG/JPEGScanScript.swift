import Foundation

/// The scan script of a progressive JPEG, read from its marker structure without decoding any
/// entropy-coded data: the frame's components, and for every scan its byte range, components,
/// spectral band (Ss…Se) and successive-approximation bits (Ah, Al). Used to build the reduced
/// streams of ``JPEGReducedScanDecode``.
///
/// The walk accepts only what libjpeg would read without a warning: one SOF2 frame (progressive,
/// Huffman, 8-bit, 1–4 components), the table and application segments libjpeg knows, scans
/// whose parameters and order follow the progression rules libjpeg checks (the same bookkeeping
/// as its per-coefficient `coef_bits`), and an EOI after the last scan. Anything else is a
/// ``Refusal``: the caller then uses the normal decode, which reports the problem as it always
/// has. A scan's entropy-coded data is skipped by searching for the next marker that is not a
/// stuffed `FF 00`, a fill byte or a restart marker (`RSTn`).
///
/// Every step consumes at least one byte and every length is checked against the data, so the
/// walk is linear in the data size; at most `maxScans` scans are recorded.
struct JPEGScanScript {
    /// One frame component.
    struct Component: Equatable {
        var id: UInt8
        var horizontalSampling: Int
        var verticalSampling: Int
    }

    /// One scan: its SOS segment and entropy-coded data.
    struct Scan: Equatable {
        /// From the SOS marker to the marker that ends its entropy-coded data.
        var range: Range<Int>
        /// Indices into ``JPEGScanScript/components``.
        var components: [Int]
        /// Ss, Se: the first and last coefficient (zigzag order) the scan codes.
        var spectralStart: Int
        var spectralEnd: Int
        /// Ah, Al: the successive-approximation bit positions (Ah 0 for a first scan).
        var approximationHigh: Int
        var approximationLow: Int

        /// Whether the scan codes DC coefficients (Ss = 0, and then Se = 0).
        var isDC: Bool { spectralStart == 0 }
    }

    /// Why the walk did not produce a script.
    enum Refusal: Error, Equatable {
        /// Not a JPEG stream (no SOI).
        case notJPEG
        /// The frame is not 8-bit progressive Huffman (SOF2), or its parameters are out of range.
        case unsupportedFrame
        /// The data ends before the EOI marker.
        case truncated
        /// The marker structure is broken, or holds a marker this walk does not accept.
        case malformed
        /// A scan's parameters or place in the sequence break the progression rules.
        case inconsistentProgression
        /// More than the allowed number of scans.
        case tooManyScans
    }

    /// The frame's components, in frame order.
    private(set) var components: [Component] = []
    /// The scans, in file order (the complete ones, when the walk stopped at a download's end).
    private(set) var scans: [Scan] = []
    /// For each component, the successive-approximation state of its 64 coefficients after the
    /// recorded scans: -1 for never coded, else the Al of the last scan that coded it (0 = exact).
    private(set) var coefficientBits: [[Int]] = []
    /// Whether the EOI marker was reached (otherwise the walk stopped at the end of a prefix).
    private(set) var reachedEndOfImage = false

    /// TurboJPEG's `TJFLAG_LIMITSCANS` refuses files with more scans than this.
    static let turboJPEGScanLimit = 500

    /// Walks `b`.
    /// - Parameters:
    ///   - maxScans: refuse the file (``Refusal/tooManyScans``) past this many scans.
    ///   - acceptingPrefix: treat the data as a download still arriving: stop without a refusal
    ///     where the data ends, keeping the scans that have fully arrived.
    init(_ b: UnsafeRawBufferPointer, maxScans: Int = turboJPEGScanLimit, acceptingPrefix: Bool = false) throws(Refusal) {
        guard b.count >= 2, b[0] == 0xFF, b[1] == 0xD8 else { throw .notJPEG }
        var walk = Walk(maxScans: maxScans)
        do {
            try walk.run(b)
        } catch .truncated where acceptingPrefix {
            // The scans recorded so far have all fully arrived.
        }
        guard !walk.components.isEmpty else { throw acceptingPrefix ? .truncated : .malformed }
        components = walk.components
        scans = walk.scans
        coefficientBits = walk.coefficientBits
        reachedEndOfImage = walk.reachedEndOfImage
    }

    /// The walk's mutable state.
    private struct Walk {
        let maxScans: Int
        var components: [Component] = []
        var scans: [Scan] = []
        var coefficientBits: [[Int]] = []
        var reachedEndOfImage = false
        /// Bit `class·4 + id` set once a Huffman table has been defined (class 0 DC, 1 AC).
        var definedHuffmanTables: UInt8 = 0
        var position = 2

        init(maxScans: Int) {
            self.maxScans = maxScans
        }

        mutating func run(_ b: UnsafeRawBufferPointer) throws(Refusal) {
            while !reachedEndOfImage {
                try segment(b)
            }
        }

        /// Reads the marker at `position` and its segment (and, for SOS, the scan's data).
        private mutating func segment(_ b: UnsafeRawBufferPointer) throws(Refusal) {
            var p = position
            guard p < b.count else { throw .truncated }
            // libjpeg skips other bytes before a marker only with a warning.
            guard b[p] == 0xFF else { throw .malformed }
            while p < b.count, b[p] == 0xFF { p += 1 }
            guard p < b.count else { throw .truncated }
            let marker = b[p]
            let markerStart = p - 1
            p += 1
            if marker == 0xD9 {
                guard !scans.isEmpty else { throw .malformed }
                reachedEndOfImage = true
                position = p
                return
            }
            guard p + 2 <= b.count else { throw .truncated }
            let length = Int(b[p]) << 8 | Int(b[p + 1])
            guard length >= 2 else { throw .malformed }
            guard length <= b.count - p else { throw .truncated }
            let body = UnsafeRawBufferPointer(rebasing: b[(p + 2)..<(p + length)])
            position = p + length
            switch marker {
            case 0xE0...0xEF, 0xFE, 0xDB, 0xDD, 0xCC:
                // APPn, COM, DQT, DRI, DAC: kept as they are; libjpeg checks their contents.
                break
            case 0xC4:
                try defineHuffmanTables(body)
            case 0xC2:
                try frame(body)
            case 0xC0...0xCF:
                throw components.isEmpty ? .unsupportedFrame : .malformed
            case 0xDA:
                try scan(body, start: markerStart, b)
            default:
                // RSTn or SOI outside a scan, DNL, hierarchical and reserved markers.
                throw .malformed
            }
        }

        private mutating func defineHuffmanTables(_ body: UnsafeRawBufferPointer) throws(Refusal) {
            var p = 0
            while p < body.count {
                let tableClass = Int(body[p] >> 4)
                let id = Int(body[p] & 0x0F)
                guard tableClass <= 1, id <= 3, p + 17 <= body.count else { throw .malformed }
                var symbols = 0
                for i in 1...16 { symbols += Int(body[p + i]) }
                guard symbols <= 256, symbols <= body.count - p - 17 else { throw .malformed }
                definedHuffmanTables |= 1 << (tableClass * 4 + id)
                p += 17 + symbols
            }
        }

        private mutating func frame(_ body: UnsafeRawBufferPointer) throws(Refusal) {
            guard components.isEmpty else { throw .malformed }
            guard body.count >= 6 else { throw .unsupportedFrame }
            let height = Int(body[1]) << 8 | Int(body[2])
            let width = Int(body[3]) << 8 | Int(body[4])
            let count = Int(body[5])
            guard body[0] == 8, height > 0, width > 0, (1...4).contains(count), body.count == 6 + 3 * count else {
                throw .unsupportedFrame
            }
            var found: [Component] = []
            for i in 0..<count {
                let id = body[6 + 3 * i]
                let sampling = body[7 + 3 * i]
                let h = Int(sampling >> 4)
                let v = Int(sampling & 0x0F)
                guard (1...4).contains(h), (1...4).contains(v), body[8 + 3 * i] <= 3,
                    !found.contains(where: { $0.id == id })
                else { throw .unsupportedFrame }
                found.append(Component(id: id, horizontalSampling: h, verticalSampling: v))
            }
            components = found
            coefficientBits = Array(repeating: Array(repeating: -1, count: 64), count: count)
        }

        private mutating func scan(_ body: UnsafeRawBufferPointer, start: Int, _ b: UnsafeRawBufferPointer) throws(Refusal) {
            guard !components.isEmpty else { throw .malformed }
            guard scans.count < maxScans else { throw .tooManyScans }
            guard body.count >= 1 else { throw .malformed }
            let count = Int(body[0])
            guard (1...4).contains(count), body.count == 4 + 2 * count else { throw .malformed }
            var indices: [Int] = []
            var tables: [UInt8] = []
            for i in 0..<count {
                guard let index = components.firstIndex(where: { $0.id == body[1 + 2 * i] }), !indices.contains(index)
                else { throw .malformed }
                indices.append(index)
                tables.append(body[2 + 2 * i])
            }
            let ss = Int(body[1 + 2 * count])
            let se = Int(body[2 + 2 * count])
            let ah = Int(body[3 + 2 * count] >> 4)
            let al = Int(body[3 + 2 * count] & 0x0F)
            // The parameter checks of libjpeg's progressive Huffman decoder (fatal there).
            if ss == 0 {
                guard se == 0 else { throw .inconsistentProgression }
            } else {
                guard ss <= se, se <= 63, count == 1 else { throw .inconsistentProgression }
            }
            guard ah == 0 || al == ah - 1, al <= 13 else { throw .inconsistentProgression }
            // The Huffman tables the scan decodes with must exist (a DC refinement reads raw bits).
            for selector in tables where ss != 0 || ah == 0 {
                let id = Int(ss == 0 ? selector >> 4 : selector & 0x0F)
                guard id <= 3, definedHuffmanTables & (1 << ((ss == 0 ? 0 : 4) + id)) != 0 else { throw .malformed }
            }
            // libjpeg's per-coefficient bookkeeping: it warns ("Inconsistent progression
            // sequence") when an AC scan comes before the component's DC, or a scan's Ah is not
            // the Al the coefficient was last coded with.
            // The new state counts only once the scan's data has fully arrived.
            var bits = coefficientBits
            for index in indices {
                guard ss == 0 || bits[index][0] >= 0 else { throw .inconsistentProgression }
                for k in ss...se {
                    guard ah == max(bits[index][k], 0) else { throw .inconsistentProgression }
                    bits[index][k] = al
                }
            }
            let end = try Self.skipEntropyData(b, from: position)
            coefficientBits = bits
            scans.append(
                Scan(
                    range: start..<end, components: indices, spectralStart: ss, spectralEnd: se,
                    approximationHigh: ah, approximationLow: al))
            position = end
        }

        /// The offset of the marker that ends the entropy-coded data starting at `start`: the
        /// first `FF` followed by a byte other than `00` (stuffing), `FF` (fill) or `D0`…`D7`
        /// (restart markers, which stay inside the scan).
        static func skipEntropyData(_ b: UnsafeRawBufferPointer, from start: Int) throws(Refusal) -> Int {
            guard let base = b.baseAddress else { throw .truncated }
            var p = start
            while p + 1 < b.count {
                // memchr: most of a scan is entropy-coded bytes with no FF in them.
                guard let hit = memchr(base + p, 0xFF, b.count - 1 - p) else { break }
                p = base.distance(to: UnsafeRawPointer(hit))
                switch b[p + 1] {
                case 0x00, 0xD0...0xD7: p += 2
                case 0xFF: p += 1
                default: return p
                }
            }
            throw .truncated
        }
    }
}
