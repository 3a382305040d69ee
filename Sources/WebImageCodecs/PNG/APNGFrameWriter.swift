import Foundation
import WebImageCore

/// PNG and APNG frames one at a time (an ``AnimationFrameWriter``). Each frame is compressed by
/// libspng as soon as it is added, and only its chunks are kept: per frame an `fcTL` (dispose
/// none, blend source) and its data — the first frame's as `IDAT` (so it is also the default
/// image), the others' as `fdAT`. At the end the file is the first PNG's `IHDR`, `acTL` (the
/// frame count, known only then), those chunks and `IEND`.
///
/// The first frame covers the canvas; every later frame only the rectangle of pixels that
/// differ from the frame before it (at least 1×1), placed by the `fcTL` offsets. Blending
/// "source" replaces that rectangle exactly — transparent pixels included — and disposal
/// "none" keeps the rest, so every displayed frame equals the frame added, while an animation
/// whose frames change a little (the usual case, long GIF animations included)
/// compresses only what changed. The writer holds the previous frame for the comparison.
///
/// One pixel layout for the whole file: RGBA when the writer was made with alpha, else RGB; or,
/// made with a palette, 8-bit indices into that one palette (APNG has a single `PLTE` for every
/// frame), the first frame's `PLTE` and `tRNS` kept with its `IHDR`. Interlacing (Adam7) applies
/// to every frame's data, as the `IHDR` says.
final class APNGFrameWriter: AnimationFrameWriter {
    private let alpha: Bool
    private let loopCount: Int
    private let interlaced: Bool
    /// The palette and every frame's indices, frame after frame (``PNGCoder`` quantises the
    /// frames together).
    private let palette: GIFQuantizer.Result?
    /// The first frame's `IHDR` chunk, whole (and its `PLTE` and `tRNS` with a palette).
    private var header: [UInt8]?
    /// `fcTL`, `IDAT` and `fdAT` chunks of the frames so far.
    private var body = PNGChunkWriter(signature: false)
    private var frameCount = 0
    private var sequence: UInt32 = 0
    /// The last frame added, which the next one is compared with.
    private var previous: PixelBuffer?

    /// - Parameters:
    ///   - alpha: write RGBA (else RGB, alpha dropped).
    ///   - loopCount: plays (0 = forever).
    ///   - interlaced: Adam7-interlace every frame.
    ///   - palette: write indexed frames: its `indices` hold every frame's, in the order they
    ///     are added.
    init(alpha: Bool, loopCount: Int, interlaced: Bool = false, palette: GIFQuantizer.Result? = nil) {
        self.alpha = alpha
        self.loopCount = loopCount
        self.interlaced = interlaced
        self.palette = palette
    }

    func encodeStill(_ pixels: PixelBuffer) throws -> Data {
        Data(try SPNGEncoding.encode(pixels, alpha: alpha))
    }

    func addAnimationFrame(_ pixels: PixelBuffer, duration: Double) throws {
        let region = previous.map { FrameDifference.changedRegion(from: $0, to: pixels) }
            ?? PixelRect(x: 0, y: 0, width: pixels.width, height: pixels.height)
        previous = pixels
        let png: [UInt8]
        if let palette {
            png = try SPNGEncoding.encodeIndexed(
                try Self.indices(of: palette, frame: frameCount, size: pixels, region: region), width: region.width,
                height: region.height, palette: palette, interlaced: interlaced)
        } else {
            png = try SPNGEncoding.encode(
                FrameDifference.crop(pixels, to: region), alpha: alpha, settings: PNGEncodeSettings(interlaced: interlaced))
        }
        try png.withUnsafeBytes { bytes in
            let (chunks, truncated) = try PNGChunkScanner.chunks(in: bytes)
            guard !truncated, let ihdr = chunks.first, ihdr.type == .ihdr, ihdr.data.count == 13 else {
                throw WebImageError.encodingFailed(reason: "APNG: libspng output unreadable")
            }
            let first = header == nil
            if first {
                var kept = Array(bytes[ihdr.whole])
                for chunk in chunks where chunk.type == .plte || chunk.type == .trns { kept += bytes[chunk.whole] }
                header = kept
            }
            var fctl: [UInt8] = []
            fctl.appendBigEndian(sequence)
            sequence += 1
            // Width and height from this frame's IHDR: 8 bytes copied.
            fctl.append(contentsOf: bytes[ihdr.data.lowerBound..<(ihdr.data.lowerBound + 8)])
            fctl.appendBigEndian(UInt32(region.x))
            fctl.appendBigEndian(UInt32(region.y))
            let (numerator, denominator) = Self.delayFraction(duration)
            fctl.appendBigEndian(numerator)
            fctl.appendBigEndian(denominator)
            fctl.append(contentsOf: [0, 0])
            body.append(.fctl, fctl)
            for chunk in chunks where chunk.type == .idat {
                if first {
                    body.appendRaw(UnsafeRawBufferPointer(rebasing: bytes[chunk.whole]))
                } else {
                    var fdat: [UInt8] = []
                    fdat.reserveCapacity(chunk.data.count + 4)
                    fdat.appendBigEndian(sequence)
                    sequence += 1
                    fdat.append(contentsOf: bytes[chunk.data])
                    body.append(.fdat, fdat)
                }
            }
        }
        frameCount += 1
    }

    func finishAnimation() throws -> Data {
        guard let header, frameCount > 0 else { throw WebImageError.encodingFailed(reason: "APNG: no frames") }
        var writer = PNGChunkWriter(capacity: header.count + body.bytes.count + 40)
        header.withUnsafeBytes { writer.appendRaw($0) }
        var actl: [UInt8] = []
        actl.appendBigEndian(UInt32(clamping: frameCount))
        actl.appendBigEndian(UInt32(clamping: max(0, loopCount)))
        writer.append(.actl, actl)
        body.bytes.withUnsafeBytes { writer.appendRaw($0) }
        body = PNGChunkWriter(signature: false)
        writer.append(.iend, [])
        return Data(writer.bytes)
    }

    /// The palette indices of `region` of frame `frame` (each frame `size.width × size.height`).
    private static func indices(
        of palette: GIFQuantizer.Result, frame: Int, size: PixelBuffer, region: PixelRect
    ) throws -> [UInt8] {
        let width = size.width, count = width * size.height
        guard (frame + 1) * count <= palette.indices.count else {
            throw WebImageError.encodingFailed(reason: "APNG: frame \(frame + 1) is past the frames the palette was made for")
        }
        var out: [UInt8] = []
        out.reserveCapacity(region.width * region.height)
        for y in region.y..<(region.y + region.height) {
            let start = frame * count + y * width + region.x
            out += palette.indices[start..<(start + region.width)]
        }
        return out
    }

    /// A duration as an `fcTL` delay fraction: milliseconds when they fit, else centiseconds.
    static func delayFraction(_ seconds: Double) -> (UInt16, UInt16) {
        let safe = seconds.isFinite ? max(0, seconds) : 0
        let milliseconds = (safe * 1000).rounded()
        if milliseconds <= Double(UInt16.max) { return (UInt16(milliseconds), 1000) }
        return (UInt16(min(Double(UInt16.max), (safe * 100).rounded())), 100)
    }
}
