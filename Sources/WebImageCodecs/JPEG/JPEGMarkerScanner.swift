/// A resumable walk over a JPEG's marker structure, used for what TurboJPEG does not report:
/// the frame type and sample precision (12-bit and lossless files are refused cleanly), the
/// Adobe APP14 marker (inverted CMYK), and how many scans have fully arrived (progressive
/// loading).
///
/// Because a download only ever grows, the scanner keeps its position and continues from there
/// when fed a longer prefix of the same file: each byte is looked at once per download.
/// Every step consumes at least one byte and all lengths are checked against the data, so the
/// walk is bounded by the data size whatever the input.
struct JPEGMarkerScanner {
    /// What the start-of-frame segment says.
    struct Frame: Equatable {
        /// The SOFn marker code (0xC0…0xCF, excluding DHT 0xC4, JPG 0xC8 and DAC 0xCC).
        var marker: UInt8
        /// Sample precision in bits.
        var precision: Int
        var height: Int
        var width: Int
        var components: Int

        /// Progressive DCT (SOF2 Huffman, SOF10 arithmetic).
        var isProgressive: Bool { marker == 0xC2 || marker == 0xCA }
        /// Whether the frame type is one libjpeg-turbo's 8-bit build decodes: baseline and
        /// extended sequential, progressive, Huffman or arithmetic (not lossless or hierarchical).
        var isSupportedProcess: Bool { [0xC0, 0xC1, 0xC2, 0xC9, 0xCA].contains(marker) }
    }

    private enum State: Equatable {
        /// Expecting a marker at `position`.
        case markers
        /// Inside the entropy-coded data of a scan.
        case entropyData
        /// EOI seen, or the structure is broken; nothing more to learn.
        case finished
    }

    /// The frame header, once it has fully arrived.
    private(set) var frame: Frame?
    /// Whether an Adobe APP14 segment was seen.
    private(set) var hasAdobeMarker = false
    /// Scans (SOS segments) whose entropy-coded data has fully arrived.
    private(set) var completedScans = 0
    /// Offset where the first scan's entropy-coded data starts, once known.
    private(set) var firstScanDataOffset: Int?
    /// Whether the EOI marker has been reached.
    private(set) var reachedEndOfImage = false
    /// Whether the bytes did not follow JPEG marker syntax.
    private(set) var isMalformed = false

    private var state = State.markers
    private var position = 2

    /// Continues the walk over `b`, a prefix of the file at least as long as the last one.
    /// With `stopAtFirstScan`, stops where the first scan's entropy-coded data begins (all the
    /// header information is known by then).
    mutating func scan(_ b: UnsafeRawBufferPointer, stopAtFirstScan: Bool = false) {
        guard b.count >= 2, b[0] == 0xFF, b[1] == 0xD8 else {
            if b.count >= 2 { isMalformed = true; state = .finished }
            return
        }
        while position < b.count, state != .finished {
            if stopAtFirstScan, state == .entropyData { return }
            switch state {
            case .markers:
                guard let next = readSegment(b) else { return }
                position = next
            case .entropyData:
                guard let next = skipEntropyData(b) else { return }
                position = next
            case .finished:
                return
            }
        }
    }

    /// Reads one marker segment at `position`; returns the offset after it, or `nil` when it
    /// has not fully arrived yet.
    private mutating func readSegment(_ b: UnsafeRawBufferPointer) -> Int? {
        var p = position
        // Bytes before a marker are extraneous; libjpeg skips them with a warning, and so do we.
        while p < b.count, b[p] != 0xFF { p += 1 }
        guard p < b.count else {
            position = p
            return nil
        }
        position = p  // An incomplete segment is re-read from its marker next time.
        while p < b.count, b[p] == 0xFF { p += 1 }
        guard p < b.count else { return nil }
        let marker = b[p]
        p += 1
        switch marker {
        case 0xD9:
            reachedEndOfImage = true
            state = .finished
            return p
        case 0x01, 0xD0...0xD7:
            return p
        case 0x00, 0xD8:
            isMalformed = true
            state = .finished
            return nil
        default:
            break
        }
        guard p + 2 <= b.count else { return nil }
        let length = Int(b[p]) << 8 | Int(b[p + 1])
        guard length >= 2 else {
            isMalformed = true
            state = .finished
            return nil
        }
        guard length <= b.count - p else { return nil }
        let body = UnsafeRawBufferPointer(rebasing: b[(p + 2)..<(p + length)])
        switch marker {
        case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
            if frame == nil, body.count >= 6 {
                frame = Frame(
                    marker: marker, precision: Int(body[0]),
                    height: Int(body[1]) << 8 | Int(body[2]),
                    width: Int(body[3]) << 8 | Int(body[4]),
                    components: Int(body[5]))
            }
        case 0xEE:
            if body.count >= 5, Array(body[0..<5]) == Array("Adobe".utf8) { hasAdobeMarker = true }
        case 0xDA:
            state = .entropyData
            if firstScanDataOffset == nil { firstScanDataOffset = p + length }
        default:
            break
        }
        return p + length
    }

    /// Skips entropy-coded data from `position` to the next marker that is not a stuffed zero
    /// or a restart marker; returns that marker's offset, or `nil` when it has not arrived.
    private mutating func skipEntropyData(_ b: UnsafeRawBufferPointer) -> Int? {
        var p = position
        while p + 1 < b.count {
            if b[p] == 0xFF {
                let next = b[p + 1]
                if next == 0x00 || (0xD0...0xD7).contains(next) || next == 0xFF {
                    p += next == 0xFF ? 1 : 2
                    continue
                }
                completedScans += 1
                state = .markers
                return p
            }
            p += 1
        }
        // Resume at the last unexamined byte next time (it may be the first half of a marker).
        position = p
        return nil
    }
}
