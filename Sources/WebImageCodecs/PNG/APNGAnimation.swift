import WebImageCore

/// What to do with a frame's region before the next frame is rendered (APNG `dispose_op`).
enum APNGDisposeOp: UInt8, Sendable {
    /// Leave the canvas as it is.
    case none = 0
    /// Clear the frame's region to transparent black.
    case background = 1
    /// Restore the frame's region to what it was before the frame was rendered.
    case previous = 2
}

/// How a frame is drawn onto the canvas (APNG `blend_op`).
enum APNGBlendOp: UInt8, Sendable {
    /// Replace the region, alpha included.
    case source = 0
    /// Alpha-composite the frame over the region.
    case over = 1
}

/// One frame's control data (`fcTL`), validated against the canvas.
struct APNGFrameControl: Sendable, Hashable {
    var x: Int
    var y: Int
    var width: Int
    var height: Int
    /// Display duration in seconds, already clamped with ``/WebImageCore/FrameDelay/clamped(_:)``.
    var duration: Double
    var dispose: APNGDisposeOp
    var blend: APNGBlendOp
}

/// One animation frame: its control and the chunks holding its compressed data (`IDAT`, or
/// `fdAT` whose data starts with a sequence number).
struct APNGFrame: Sendable {
    var control: APNGFrameControl
    /// The data chunks; their CRCs are checked when the frame is decoded, not when parsed, so
    /// that reading metadata or opening a source does not hash the whole file.
    var dataChunks: [PNGChunk]
}

extension PNGChunk {
    /// The compressed image data of an `IDAT` or `fdAT` chunk (the latter after its sequence
    /// number).
    var imageData: Range<Int> { type == .fdat ? (data.lowerBound + 4)..<data.upperBound : data }
}

/// The chunk-level layout of a PNG: header, the APNG animation if there is a valid one, and the
/// few ancillary facts the coder reports. Reading it walks the chunks and checks the CRCs of the
/// small chunks it relies on (not the image data); no pixels are decoded.
struct PNGLayout: Sendable {
    var header: PNGHeader
    /// The valid animation (`acTL` before `IDAT`, consistent `fcTL`/`fdAT`), or `nil` for a
    /// still image — including an APNG whose animation chunks are broken, which is then shown
    /// as its default image like browsers do.
    var animation: APNGAnimation?
    /// Declared frame count and plays of an `acTL` before `IDAT`, even when the animation is
    /// not valid (metadata reports it).
    var declaredFrames: Int?
    /// EXIF orientation from the first valid `eXIf` chunk.
    var orientation: ImageOrientation
    /// Whether a `tRNS` chunk precedes the image data.
    var hasTransparencyChunk: Bool
    /// Whether an `acTL` but no `fcTL` precedes `IDAT`: the default image is then not part of
    /// the animation (APNG-aware viewers never show it).
    var defaultImageIsHidden: Bool = false

    var hasAlpha: Bool { header.hasAlphaChannel || hasTransparencyChunk }
}

/// A valid APNG animation.
struct APNGAnimation: Sendable {
    /// Loop count (`num_plays`; 0 = forever).
    var loopCount: Int
    /// The frames in display order.
    var frames: [APNGFrame]
    /// Whether the default image (`IDAT`) is the first frame (an `fcTL` precedes `IDAT`).
    var defaultImageIsFirstFrame: Bool
    /// Whole `PLTE`/`tRNS` chunks that every frame's stand-alone PNG needs.
    var sharedChunks: [Range<Int>]

    /// Whether composited frames can show the transparent canvas even when the pixel format
    /// has no alpha: the first frame does not cover the canvas, or a frame is disposed to
    /// background.
    func exposesCanvas(_ canvas: PixelSize) -> Bool {
        guard let first = frames.first else { return false }
        let coversCanvas = first.control.x == 0 && first.control.y == 0
            && first.control.width == canvas.width && first.control.height == canvas.height
        return !coversCanvas || frames.contains { $0.control.dispose == .background }
    }
}

extension PNGLayout {
    /// Reads the layout of `bytes`.
    /// - Throws: `badImageData` when the signature or a valid IHDR is missing.
    static func read(_ bytes: UnsafeRawBufferPointer) throws -> PNGLayout {
        let (chunks, _) = try PNGChunkScanner.chunks(in: bytes)
        guard let first = chunks.first, first.type == .ihdr, first.data.count == 13 else {
            throw WebImageError.badImageData(reason: "PNG: IHDR missing")
        }
        guard first.hasValidCRC(in: bytes) else {
            throw WebImageError.badImageData(reason: "PNG: IHDR CRC mismatch")
        }
        let at = first.data.lowerBound
        let width = PNGChunkScanner.uint32(bytes, at: at)
        let height = PNGChunkScanner.uint32(bytes, at: at + 4)
        guard width > 0, height > 0, width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else {
            throw WebImageError.badImageData(reason: "PNG: invalid dimensions \(width)x\(height)")
        }
        let header = PNGHeader(
            width: Int(width), height: Int(height), bitDepth: bytes[at + 8], colorType: bytes[at + 9],
            interlaced: bytes[at + 12] != 0)
        var layout = PNGLayout(
            header: header, animation: nil, declaredFrames: nil, orientation: .up, hasTransparencyChunk: false)
        var seenImageData = false
        var seenFrameControl = false
        for chunk in chunks {
            // Small critical chunks are checked here (APNG frames copy PLTE); IDAT CRCs are
            // checked by libspng (still images) or by the APNG parser (frames it re-wraps).
            if chunk.type.isCritical && chunk.type != .idat && chunk.type != .ihdr && !chunk.hasValidCRC(in: bytes) {
                throw WebImageError.badImageData(reason: "PNG: CRC mismatch in \(chunk.type)")
            }
            switch chunk.type {
            case .idat:
                if !seenImageData { layout.defaultImageIsHidden = layout.declaredFrames != nil && !seenFrameControl }
                seenImageData = true
            case .fctl: seenFrameControl = true
            case .trns where !seenImageData: layout.hasTransparencyChunk = true
            case .actl where !seenImageData && chunk.data.count == 8 && layout.declaredFrames == nil:
                layout.declaredFrames = Int(PNGChunkScanner.uint32(bytes, at: chunk.data.lowerBound))
            case .exif where layout.orientation == .up && chunk.hasValidCRC(in: bytes):
                layout.orientation = PNGEXIF.orientation(UnsafeRawBufferPointer(rebasing: bytes[chunk.data]))
            default: break
            }
        }
        if layout.declaredFrames != nil {
            layout.animation = try? APNGParser.parse(chunks, in: bytes, canvas: header.size)
        }
        return layout
    }
}

/// Validates the APNG chunks of a stream (sequence numbers, frame rectangles, chunk order, CRCs
/// of `acTL`/`fcTL`) and collects the frames. Any inconsistency throws; the caller then treats the file as
/// a still image.
enum APNGParser {
    struct Invalid: Error {
        var reason: String
    }

    static func parse(_ chunks: [PNGChunk], in bytes: UnsafeRawBufferPointer, canvas: PixelSize) throws -> APNGAnimation {
        var declared: (frames: Int, plays: Int)?
        var seenImageData = false
        var imageDataEnded = false
        var nextSequence: UInt32 = 0
        var frames: [APNGFrame] = []
        var defaultIsFrame = false
        var shared: [Range<Int>] = []
        chunkLoop: for chunk in chunks {
            let data = chunk.data
            switch chunk.type {
            case .actl:
                guard !seenImageData, declared == nil else { continue }
                guard data.count == 8, chunk.hasValidCRC(in: bytes) else { throw Invalid(reason: "acTL") }
                let count = Int(PNGChunkScanner.uint32(bytes, at: data.lowerBound))
                let plays = Int(PNGChunkScanner.uint32(bytes, at: data.lowerBound + 4))
                guard count > 0 else { throw Invalid(reason: "acTL declares no frames") }
                declared = (count, plays)
            case .plte, .trns:
                if !seenImageData { shared.append(chunk.whole) }
            case .idat:
                guard !imageDataEnded else { throw Invalid(reason: "IDAT after animation frames") }
                seenImageData = true
                if defaultIsFrame && frames.count == 1 { frames[0].dataChunks.append(chunk) }
            case .fctl:
                guard let declared else { continue }
                // Frames beyond the declared count are ignored (their data follows this fcTL).
                if frames.count == declared.frames { break chunkLoop }
                if seenImageData { imageDataEnded = true }
                guard data.count == 26, chunk.hasValidCRC(in: bytes) else { throw Invalid(reason: "fcTL") }
                let at = data.lowerBound
                guard PNGChunkScanner.uint32(bytes, at: at) == nextSequence else {
                    throw Invalid(reason: "fcTL sequence number")
                }
                nextSequence &+= 1
                let control = try frameControl(bytes, at: at + 4, canvas: canvas, isFirst: frames.isEmpty)
                if !seenImageData {
                    guard frames.isEmpty, control.x == 0, control.y == 0, control.width == canvas.width,
                        control.height == canvas.height
                    else { throw Invalid(reason: "fcTL of the default image must cover the canvas") }
                    defaultIsFrame = true
                }
                frames.append(APNGFrame(control: control, dataChunks: []))
            case .fdat:
                guard declared != nil else { continue }
                if seenImageData { imageDataEnded = true }
                guard data.count >= 4 else { throw Invalid(reason: "fdAT too short") }
                guard PNGChunkScanner.uint32(bytes, at: data.lowerBound) == nextSequence else {
                    throw Invalid(reason: "fdAT sequence number")
                }
                nextSequence &+= 1
                guard seenImageData, let last = frames.indices.last, !(defaultIsFrame && last == 0) else {
                    throw Invalid(reason: "fdAT without its fcTL")
                }
                frames[last].dataChunks.append(chunk)
            default:
                break
            }
        }
        guard let declared else { throw Invalid(reason: "no acTL before IDAT") }
        // A truncated file may end before the last frames' data: keep the frames that have some.
        while let last = frames.last, last.dataChunks.isEmpty { frames.removeLast() }
        guard frames.allSatisfy({ !$0.dataChunks.isEmpty }) else { throw Invalid(reason: "frame without data") }
        guard !frames.isEmpty else { throw Invalid(reason: "no frames") }
        return APNGAnimation(
            loopCount: declared.plays, frames: frames, defaultImageIsFirstFrame: defaultIsFrame, sharedChunks: shared)
    }

    /// Parses the 22 bytes of an `fcTL` after its sequence number.
    private static func frameControl(
        _ bytes: UnsafeRawBufferPointer, at: Int, canvas: PixelSize, isFirst: Bool
    ) throws -> APNGFrameControl {
        let width = Int(PNGChunkScanner.uint32(bytes, at: at))
        let height = Int(PNGChunkScanner.uint32(bytes, at: at + 4))
        let x = Int(PNGChunkScanner.uint32(bytes, at: at + 8))
        let y = Int(PNGChunkScanner.uint32(bytes, at: at + 12))
        // All four are < 2^32, so the sums cannot overflow a 64-bit Int.
        guard width > 0, height > 0, x + width <= canvas.width, y + height <= canvas.height else {
            throw Invalid(reason: "frame rectangle outside the canvas")
        }
        let numerator = Double(PNGChunkScanner.uint16(bytes, at: at + 16))
        let rawDenominator = PNGChunkScanner.uint16(bytes, at: at + 18)
        let denominator = rawDenominator == 0 ? 100 : Double(rawDenominator)
        guard var dispose = APNGDisposeOp(rawValue: bytes[at + 20]),
            let blend = APNGBlendOp(rawValue: bytes[at + 21])
        else { throw Invalid(reason: "unknown dispose or blend op") }
        // "If the first fcTL has dispose_op PREVIOUS it is treated as BACKGROUND."
        if isFirst && dispose == .previous { dispose = .background }
        return APNGFrameControl(
            x: x, y: y, width: width, height: height, duration: FrameDelay.clamped(numerator / denominator),
            dispose: dispose, blend: blend)
    }
}
