import CGIF
import WebImageCore

/// Decodes a GIF's frames in order and composites each onto an RGBA canvas the way browsers
/// do, so that every frame it returns can be shown on its own.
///
/// Rules:
/// - The canvas is the logical screen (``GIFStructure/canvasSize``), initially transparent.
///   Frames are clipped to it: parts of a frame outside the screen, including frames larger
///   than the screen, are decoded and dropped (the GIF89a model, and the reference renderings).
/// - A frame's palette is its local colour map, else the global one, else black/white. Indices
///   beyond the colour map are opaque black. The Graphic Control Extension's transparent index
///   leaves the canvas pixel unchanged.
/// - Before the next frame is drawn, the previous frame's disposal is applied to its (clipped)
///   rectangle: keep (0, 1), clear to transparent (2), or restore what was there before it (3).
/// - Interlaced frames are de-interlaced (rows arrive in the four GIF passes).
///
/// Each returned `PixelBuffer` shares the canvas storage until the next frame is drawn, when
/// copy-on-write gives the canvas new storage: one copy per frame, none for the last frame.
///
/// Not thread-safe: one owner uses it serially.
final class GIFFrameSequence {
    /// The canvas size (the logical screen).
    let canvasSize: PixelSize
    /// The block structure the frames are read against.
    let structure: GIFStructure

    private let reader: GIFFileReader
    private let limits: DecodeLimits
    private var canvas: [UInt8]
    private var line: [UInt8] = []
    private var saved: [UInt8] = []
    private var pending: (rect: ClipRect, disposal: GIFStructure.Disposal)?
    private(set) var framesDecoded = 0

    /// The visible part of a frame on the canvas (half-open ranges).
    struct ClipRect {
        var x0 = 0, y0 = 0, x1 = 0, y1 = 0
        var isEmpty: Bool { x0 >= x1 || y0 >= y1 }
    }

    /// Opens `bytes` for sequential frame decoding.
    /// - Throws: `imageTooLarge` when the canvas exceeds `limits` (checked before the canvas is
    ///   allocated), `badImageData` when giflib cannot open the data.
    init(bytes: UnsafeRawBufferPointer, structure: GIFStructure, limits: DecodeLimits) throws {
        let size = structure.canvasSize
        try limits.check(canvas: size)
        self.structure = structure
        self.limits = limits
        canvasSize = size
        reader = try GIFFileReader(bytes: bytes)
        canvas = [UInt8](repeating: 0, count: size.width * size.height * PixelBuffer.bytesPerPixel)
    }

    /// One composited frame.
    struct DecodedFrame {
        /// The canvas after the frame was drawn.
        var pixels: PixelBuffer
        /// The frame's record from the block structure.
        var record: GIFStructure.Frame
        /// Rows of the frame drawn (all of them unless `allowPartial` stopped early).
        var rowsDecoded: Int
        /// Whether every row of the frame was decoded.
        var isComplete: Bool
    }

    /// Decodes and composites the next frame.
    /// - Parameter allowPartial: when the frame's data ends early (a download in progress),
    ///   return the canvas with the rows decoded so far instead of throwing. The sequence cannot
    ///   continue after a partial frame.
    /// - Returns: the composited frame, or `nil` when there are no more complete frames (or, with
    ///   `allowPartial`, no more frames whose descriptor has arrived).
    /// - Throws: `badImageData` when the frame's data is corrupt or truncated; `imageTooLarge`
    ///   when the frame itself declares more pixels than the limit.
    func next(allowPartial: Bool = false) throws -> DecodedFrame? {
        let record: GIFStructure.Frame
        if framesDecoded < structure.frames.count {
            record = structure.frames[framesDecoded]
        } else if allowPartial, framesDecoded == structure.frames.count, let truncated = structure.truncatedFrame {
            record = truncated
        } else {
            return nil
        }
        guard try reader.nextImage() else { return nil }
        let descriptor = reader.image
        let frameWidth = Int(descriptor.Width)
        let frameHeight = Int(descriptor.Height)
        let left = Int(descriptor.Left)
        let top = Int(descriptor.Top)
        let framePixels = PixelSize(width: frameWidth, height: frameHeight).pixelCount
        guard framePixels <= limits.maxPixelCount else {
            throw WebImageError.imageTooLarge(
                reason: "GIF frame \(frameWidth)x\(frameHeight) exceeds \(limits.maxPixelCount) pixels")
        }

        applyPendingDisposal()
        let clip = ClipRect(
            x0: min(left, canvasSize.width), y0: min(top, canvasSize.height),
            x1: min(left + frameWidth, canvasSize.width), y1: min(top + frameHeight, canvasSize.height))
        if record.disposal == .previous { save(clip) }

        var rows = 0
        if frameWidth == 0 || frameHeight == 0 {
            try reader.skipImageData()
        } else {
            do {
                try draw(
                    width: frameWidth, height: frameHeight, left: left, top: top, clip: clip,
                    interlaced: descriptor.Interlace, transparent: record.transparentIndex.map(Int.init) ?? -1,
                    rowsDrawn: &rows)
            } catch {
                guard allowPartial else { throw error }
            }
        }
        let complete = frameWidth == 0 || frameHeight == 0 || rows == frameHeight
        pending = (clip, record.disposal)
        framesDecoded += 1
        let pixels = PixelBuffer(width: canvasSize.width, height: canvasSize.height, bytes: canvas)
        return DecodedFrame(pixels: pixels, record: record, rowsDecoded: rows, isComplete: complete)
    }

    private func draw(
        width: Int, height: Int, left: Int, top: Int, clip: ClipRect, interlaced: Bool, transparent: Int,
        rowsDrawn: inout Int
    ) throws {
        if line.count != width { line = [UInt8](repeating: 0, count: width) }
        let palette = reader.palette
        let canvasWidth = canvasSize.width
        let visible = clip.isEmpty ? 0 : clip.x1 - clip.x0
        let reader = self.reader
        var rows = 0
        defer { rowsDrawn = rows }
        try canvas.withUnsafeMutableBytes { dst in
            try line.withUnsafeMutableBufferPointer { row in
                try palette.withUnsafeBufferPointer { colors in
                    func decodeRow(_ r: Int) throws {
                        try reader.readRow(into: row)
                        rows += 1
                        let y = top + r
                        guard visible > 0, y < clip.y1 else { return }
                        var offset = (y * canvasWidth + left) * PixelBuffer.bytesPerPixel
                        for i in 0..<visible {
                            let index = Int(row[i])
                            if index != transparent {
                                dst.storeBytes(of: colors[index], toByteOffset: offset, as: UInt32.self)
                            }
                            offset += PixelBuffer.bytesPerPixel
                        }
                    }
                    if interlaced {
                        for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
                            for r in stride(from: start, to: height, by: step) { try decodeRow(r) }
                        }
                    } else {
                        for r in 0..<height { try decodeRow(r) }
                    }
                }
            }
        }
    }

    /// Applies the previous frame's disposal to its rectangle.
    private func applyPendingDisposal() {
        guard let (rect, disposal) = pending, !rect.isEmpty else { return }
        pending = nil
        let rowBytes = (rect.x1 - rect.x0) * PixelBuffer.bytesPerPixel
        let stride = canvasSize.width * PixelBuffer.bytesPerPixel
        switch disposal {
        case .keep:
            return
        case .background:
            canvas.withUnsafeMutableBytes { dst in
                for y in rect.y0..<rect.y1 {
                    let start = y * stride + rect.x0 * PixelBuffer.bytesPerPixel
                    UnsafeMutableRawBufferPointer(rebasing: dst[start..<(start + rowBytes)]).initializeMemory(
                        as: UInt8.self, repeating: 0)
                }
            }
        case .previous:
            guard saved.count == rowBytes * (rect.y1 - rect.y0) else { return }
            canvas.withUnsafeMutableBytes { dst in
                saved.withUnsafeBytes { src in
                    for (i, y) in (rect.y0..<rect.y1).enumerated() {
                        let start = y * stride + rect.x0 * PixelBuffer.bytesPerPixel
                        UnsafeMutableRawBufferPointer(rebasing: dst[start..<(start + rowBytes)]).copyMemory(
                            from: UnsafeRawBufferPointer(rebasing: src[(i * rowBytes)..<((i + 1) * rowBytes)]))
                    }
                }
            }
        }
    }

    /// Keeps the canvas under `rect` for a later "restore to previous".
    private func save(_ rect: ClipRect) {
        guard !rect.isEmpty else {
            saved = []
            return
        }
        let rowBytes = (rect.x1 - rect.x0) * PixelBuffer.bytesPerPixel
        let stride = canvasSize.width * PixelBuffer.bytesPerPixel
        saved.removeAll(keepingCapacity: true)
        saved.reserveCapacity(rowBytes * (rect.y1 - rect.y0))
        for y in rect.y0..<rect.y1 {
            let start = y * stride + rect.x0 * PixelBuffer.bytesPerPixel
            saved.append(contentsOf: canvas[start..<(start + rowBytes)])
        }
    }
}
