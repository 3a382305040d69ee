import CSPNG
import Foundation
import WebImageCore

/// Progressive PNG decoding for one download (SPEC D-8).
///
/// Each update decodes the prefix received so far with libspng's progressive API, row by row,
/// until the data runs out; rows not yet received stay transparent. For Adam7-interlaced files
/// every decoded pixel is spread over the block it stands for until a later pass refines it,
/// so the first pass already shows a coarse image. A new attempt is made only once the prefix
/// has grown by a quarter since the last one (bounding the repeated work), and a partial image
/// is returned only when more rows or passes are available than at the previous one. The final
/// update (`isComplete`) returns the full decode (all frames of an APNG). Partial images show
/// the default image (`IDAT`), except for an APNG whose default image is not part of the
/// animation, which gets no partial images.
final class PNGIncrementalDecoder: IncrementalImageDecoder {
    private let options: DecodeOptions
    /// Scanlines (of all passes) shown by the last partial image.
    private var shownScanlines = 0
    /// Bytes available at the last partial decode attempt.
    private var attemptedBytes = 0

    init(options: DecodeOptions) {
        self.options = options
    }

    func update(_ data: Data, isComplete: Bool) throws -> Image? {
        if isComplete { return try PNGCoder().decode(data, options: options) }
        // Each attempt decodes the prefix from the start; attempting only after 25 % growth
        // keeps the total work of a download within about five full decodes.
        guard data.count >= attemptedBytes + attemptedBytes / 4, data.count > attemptedBytes else { return nil }
        attemptedBytes = data.count
        guard let partial = try? data.withUnsafeBytes({ try partialDecode($0) }),
            partial.scanlines > shownScanlines
        else { return nil }
        shownScanlines = partial.scanlines
        let output = PNGOutput(layout: partial.layout, options: options)
        let image = Image(
            pixels: output.finish(partial.pixels), scale: options.imageScale, orientation: output.reportedOrientation,
            format: .png, hasAlpha: true)
        // Converted as the complete image will be, so the picture does not shift when it ends.
        let profile = data.withUnsafeBytes { PNGCoder().colorProfile($0, options) }
        return ColorConversion.finish(image, profile: profile, options: options)
    }

    private struct Partial {
        var pixels: PixelBuffer
        var scanlines: Int
        var layout: PNGLayout
    }

    /// Decodes as many scanlines of `bytes` as are complete; `nil` when none is.
    private func partialDecode(_ bytes: UnsafeRawBufferPointer) throws -> Partial? {
        // libspng reads a whole chunk from a memory buffer before inflating it, so the prefix is
        // rewritten with its last, incomplete IDAT cut down to the bytes received (new CRC).
        guard let prefix = try Self.completedPrefix(bytes) else { return nil }
        return try prefix.withUnsafeBytes { prefix in
            let layout = try PNGLayout.read(prefix)
            // An APNG's hidden default image is not what will be shown: no preview from it.
            guard !layout.defaultImageIsHidden else { return nil }
            return try decodeRows(prefix, layout: layout)
        }
    }

    /// The complete chunks of `bytes` before `IEND`, plus the received part of a truncated
    /// `IDAT` as a chunk of its own; `nil` before any image data has arrived.
    static func completedPrefix(_ bytes: UnsafeRawBufferPointer) throws -> [UInt8]? {
        let (chunks, _) = try PNGChunkScanner.chunks(in: bytes)
        var writer = PNGChunkWriter(capacity: bytes.count + 12)
        var hasImageData = false
        for chunk in chunks where chunk.type != .iend {
            writer.appendRaw(UnsafeRawBufferPointer(rebasing: bytes[chunk.whole]))
            if chunk.type == .idat { hasImageData = true }
        }
        let end = chunks.last?.whole.upperBound ?? 8
        if end + 8 < bytes.count,
            PNGChunkType(rawValue: PNGChunkScanner.uint32(bytes, at: end + 4)) == .idat
        {
            let declared = Int(PNGChunkScanner.uint32(bytes, at: end))
            let available = min(declared, bytes.count - end - 8)
            writer.append(.idat, UnsafeRawBufferPointer(rebasing: bytes[(end + 8)..<(end + 8 + available)]))
            hasImageData = true
        }
        return hasImageData ? writer.bytes : nil
    }

    /// Decodes the rows that `bytes` (a completed prefix) holds.
    private func decodeRows(_ bytes: UnsafeRawBufferPointer, layout: PNGLayout) throws -> Partial? {
        let limits = options.limits
        return try SPNGDecoding.withContext(bytes, limits: limits) { ctx -> Partial? in
            let header = try SPNGDecoding.header(ctx, limits: limits)
            let fmt = Int32(SPNG_FMT_RGBA8.rawValue)
            let flags = Int32(SPNG_DECODE_TRNS.rawValue | SPNG_DECODE_PROGRESSIVE.rawValue)
            guard spng_decode_image(ctx, nil, 0, fmt, flags) == 0 else { return nil }
            let rowBytes = header.width * PixelBuffer.bytesPerPixel
            var canvas = [UInt8](repeating: 0, count: rowBytes * header.height)
            // Rows decoded per Adam7 pass (index 0 for non-interlaced images).
            var rowsPerPass = [Int](repeating: 0, count: 8)
            var scanlines = 0
            // At most 15 scanlines per 8 image rows exist (Adam7), so this bound is never hit
            // by a well-behaved decoder; it only guards against a loop that makes no progress.
            let maxIterations = 2 * header.height + 16
            canvas.withUnsafeMutableBytes { out in
                for _ in 0..<maxIterations {
                    var info = spng_row_info()
                    guard spng_get_row_info(ctx, &info) == 0, Int(info.row_num) < header.height,
                        let row = out.baseAddress?.advanced(by: Int(info.row_num) * rowBytes)
                    else { return }
                    let rc = spng_decode_row(ctx, row, rowBytes)
                    guard rc == 0 || rc == Int32(SPNG_EOI.rawValue) else { return }
                    scanlines += 1
                    let pass = header.interlaced ? Int(info.pass) : 0
                    if (0..<8).contains(pass) { rowsPerPass[pass] += 1 }
                    if rc != 0 { return }
                }
            }
            guard scanlines > 0 else { return nil }
            let pixels: PixelBuffer
            if header.interlaced {
                pixels = Self.spreadAdam7(canvas, width: header.width, height: header.height, rowsPerPass: rowsPerPass)
            } else {
                pixels = PixelBuffer(width: header.width, height: header.height, bytes: canvas)
            }
            return Partial(pixels: pixels, scanlines: scanlines, layout: layout)
        }
    }

    /// Adam7 passes: start and step in x and y, and the block each pixel stands for.
    private static let passes: [(x0: Int, y0: Int, dx: Int, dy: Int, bw: Int, bh: Int)] = [
        (0, 0, 8, 8, 8, 8), (4, 0, 8, 8, 4, 8), (0, 4, 4, 8, 4, 4), (2, 0, 4, 4, 2, 4),
        (0, 2, 2, 4, 2, 2), (1, 0, 2, 2, 1, 2), (0, 1, 1, 2, 1, 1),
    ]

    /// Fills each decoded pixel's Adam7 block with its colour, pass by pass, so later passes
    /// refine earlier ones. Blocks of a pass never cover pixels of an earlier pass.
    private static func spreadAdam7(_ canvas: [UInt8], width: Int, height: Int, rowsPerPass: [Int]) -> PixelBuffer {
        PixelBuffer.make(width: width, height: height) { out in
            out.initialize(repeating: 0)
            canvas.withUnsafeBufferPointer { src in
                out.withMemoryRebound(to: UInt32.self) { dst in
                    src.withMemoryRebound(to: UInt32.self) { src in
                        for (index, pass) in passes.enumerated() {
                            for r in 0..<rowsPerPass[index] {
                                let y = pass.y0 + r * pass.dy
                                guard y < height else { break }
                                let yEnd = min(height, y + pass.bh)
                                var x = pass.x0
                                while x < width {
                                    let value = src[y * width + x]
                                    let xEnd = min(width, x + pass.bw)
                                    for yy in y..<yEnd {
                                        for xx in x..<xEnd { dst[yy * width + xx] = value }
                                    }
                                    x += pass.dx
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
