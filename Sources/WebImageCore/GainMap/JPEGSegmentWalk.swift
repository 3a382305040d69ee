import Foundation

/// A bounded walk over a JPEG's marker segments, for the gain-map container: the `APPn`
/// payloads before the first scan, and where the image ends (its `EOI`), skipping the
/// entropy-coded data of every scan. Every length is checked against the bytes; each step
/// moves forward, so the walk is linear in the data whatever it holds.
struct JPEGSegmentWalk {
    /// One marker segment: its marker code and where its payload lies in the bytes.
    struct Segment {
        var marker: UInt8
        /// Offset of the payload (after the two length bytes).
        var payload: Range<Int>
    }

    let bytes: UnsafeRawBufferPointer
    /// Where the image starts (its `SOI`).
    let start: Int

    /// The segments from `start` up to the first scan (or the end of what is readable).
    func headerSegments() -> [Segment] {
        var segments: [Segment] = []
        _ = walk(stopAtScan: true) { segments.append($0) }
        return segments
    }

    /// The offset just after the image's `EOI`, `nil` when the structure breaks before it.
    func endOfImage() -> Int? {
        walk(stopAtScan: false) { _ in }
    }

    /// Walks the markers; returns the offset after `EOI` when reached.
    private func walk(stopAtScan: Bool, _ visit: (Segment) -> Void) -> Int? {
        guard start + 4 <= bytes.count, bytes[start] == 0xFF, bytes[start + 1] == 0xD8 else { return nil }
        var p = start + 2
        while p + 1 < bytes.count {
            guard bytes[p] == 0xFF else { return nil }
            var q = p + 1
            while q < bytes.count, bytes[q] == 0xFF { q += 1 }
            guard q < bytes.count else { return nil }
            let marker = bytes[q]
            q += 1
            switch marker {
            case 0xD9:
                return q
            case 0x01, 0xD0...0xD7:
                p = q
                continue
            case 0x00, 0xD8:
                return nil
            default:
                break
            }
            guard q + 2 <= bytes.count else { return nil }
            let length = Int(bytes[q]) << 8 | Int(bytes[q + 1])
            guard length >= 2, q + length <= bytes.count else { return nil }
            visit(Segment(marker: marker, payload: (q + 2)..<(q + length)))
            p = q + length
            if marker == 0xDA {
                if stopAtScan { return nil }
                // Entropy-coded data: up to the next marker that is not a stuffed zero or a restart.
                while p + 1 < bytes.count {
                    if bytes[p] == 0xFF, bytes[p + 1] != 0x00, !(0xD0...0xD7).contains(bytes[p + 1]), bytes[p + 1] != 0xFF {
                        break
                    }
                    p += 1
                }
            }
        }
        return nil
    }
}

extension JPEGSegmentWalk.Segment {
    /// Whether the payload starts with `name`.
    func isNamed(_ name: [UInt8], in bytes: UnsafeRawBufferPointer) -> Bool {
        payload.count >= name.count && bytes[payload.lowerBound..<(payload.lowerBound + name.count)].elementsEqual(name)
    }

    /// The payload after `name`, copied.
    func data(after name: [UInt8], in bytes: UnsafeRawBufferPointer) -> Data {
        Data(bytes[(payload.lowerBound + name.count)..<payload.upperBound])
    }
}
