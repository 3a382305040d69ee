import WebImageCore

/// Builds an APNG from frames that libspng compressed as stand-alone PNGs of the canvas size:
/// the first PNG's IHDR, `acTL`, then per frame an `fcTL` (full canvas, dispose none, blend
/// source) and its data — the first frame's as `IDAT` (so it is also the default image), the
/// others' as `fdAT` — then `IEND`.
enum APNGWriting {
    /// - Parameters:
    ///   - frames: each frame's stand-alone PNG and duration in seconds.
    ///   - loopCount: plays (0 = forever).
    static func assemble(frames: [(png: [UInt8], duration: Double)], loopCount: Int) throws -> [UInt8] {
        guard !frames.isEmpty else { throw WebImageError.encodingFailed(reason: "APNG: no frames") }
        var writer = PNGChunkWriter(capacity: frames.reduce(0) { $0 + $1.png.count })
        var sequence: UInt32 = 0
        for (index, frame) in frames.enumerated() {
            try frame.png.withUnsafeBytes { bytes in
                let (chunks, truncated) = try PNGChunkScanner.chunks(in: bytes)
                guard !truncated, let ihdr = chunks.first, ihdr.type == .ihdr, ihdr.data.count == 13 else {
                    throw WebImageError.encodingFailed(reason: "APNG: libspng output unreadable")
                }
                if index == 0 {
                    writer.appendRaw(UnsafeRawBufferPointer(rebasing: bytes[ihdr.whole]))
                    var actl: [UInt8] = []
                    actl.appendBigEndian(UInt32(clamping: frames.count))
                    actl.appendBigEndian(UInt32(clamping: max(0, loopCount)))
                    writer.append(.actl, actl)
                }
                var fctl: [UInt8] = []
                fctl.appendBigEndian(sequence)
                sequence += 1
                // Width and height from this frame's IHDR: 8 bytes copied.
                fctl.append(contentsOf: bytes[ihdr.data.lowerBound..<(ihdr.data.lowerBound + 8)])
                fctl.appendBigEndian(UInt32(0))
                fctl.appendBigEndian(UInt32(0))
                let (numerator, denominator) = delayFraction(frame.duration)
                fctl.appendBigEndian(numerator)
                fctl.appendBigEndian(denominator)
                fctl.append(contentsOf: [0, 0])
                writer.append(.fctl, fctl)
                for chunk in chunks where chunk.type == .idat {
                    if index == 0 {
                        writer.appendRaw(UnsafeRawBufferPointer(rebasing: bytes[chunk.whole]))
                    } else {
                        var fdat: [UInt8] = []
                        fdat.reserveCapacity(chunk.data.count + 4)
                        fdat.appendBigEndian(sequence)
                        sequence += 1
                        fdat.append(contentsOf: bytes[chunk.data])
                        writer.append(.fdat, fdat)
                    }
                }
            }
        }
        writer.append(.iend, [])
        return writer.bytes
    }

    /// A duration as an `fcTL` delay fraction: milliseconds when they fit, else centiseconds.
    static func delayFraction(_ seconds: Double) -> (UInt16, UInt16) {
        let safe = seconds.isFinite ? max(0, seconds) : 0
        let milliseconds = (safe * 1000).rounded()
        if milliseconds <= Double(UInt16.max) { return (UInt16(milliseconds), 1000) }
        return (UInt16(min(Double(UInt16.max), (safe * 100).rounded())), 100)
    }
}
