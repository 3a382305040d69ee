import Dispatch

/// A rectangle in source pixel coordinates with fractional edges, for resampling part of an
/// image (Pillow's `box`).
public struct ResampleRegion: Sendable, Hashable {
    /// Left edge in source pixels.
    public var x: Double
    /// Top edge in source pixels.
    public var y: Double
    /// Width in source pixels.
    public var width: Double
    /// Height in source pixels.
    public var height: Double

    /// Creates a region; it is clipped to the image when used.
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

/// High-quality image resampling: a separable two-pass convolution (horizontal, then vertical)
/// with the weights of every output column and row computed once, premultiplied `SIMD4<Float>`
/// accumulation, and one rounding at the end.
///
/// Works for shrinking and enlarging (the kernel widens with the shrink factor, so shrinking
/// averages the whole source area). Output matches Pillow's `Image.resize` with the same filter
/// to within rounding (see ``ResizeFilter``).
///
/// Memory: one intermediate of `outputWidth × sourceRows` floats (16 bytes per pixel) plus a
/// row buffer per thread; the source is read once, row by row.
public struct Resampler: Sendable {
    /// The kernel.
    public var filter: ResizeFilter
    /// How many threads may work on one image (rows are split between them). 1 (the default)
    /// runs on the calling thread only; the pipeline already runs several images in parallel.
    public var maxThreads: Int

    /// Creates a resampler.
    public init(filter: ResizeFilter = .lanczos3, maxThreads: Int = 1) {
        self.filter = filter
        self.maxThreads = max(1, min(maxThreads, 64))
    }

    /// Resamples `region` of `source` (the whole image when `nil`) to `size`.
    ///
    /// Sizes below 1 are treated as 1. The caller decides whether `size` is affordable (the
    /// transformers check it against the pixel limit). Resampling the whole image to its own
    /// size returns `source` itself.
    public func resample(_ source: PixelBuffer, to size: PixelSize, region: ResampleRegion? = nil) -> PixelBuffer {
        let dw = max(1, size.width)
        let dh = max(1, size.height)
        let sw = source.width
        let sh = source.height
        let box = Self.clip(region, width: sw, height: sh)
        let fullX = box.x == 0 && box.width == Double(sw)
        let fullY = box.y == 0 && box.height == Double(sh)
        if fullX && fullY && dw == sw && dh == sh { return source }

        let skipX = fullX && dw == sw
        let skipY = fullY && dh == sh
        let xTable = KernelTable(filter: filter, inSize: sw, outSize: dw, start: box.x, length: box.width)
        let yTable = KernelTable(filter: filter, inSize: sh, outSize: dh, start: box.y, length: box.height)
        let firstRow = skipY ? 0 : yTable.firstInput
        let rowCount = skipY ? sh : yTable.endInput - firstRow
        let intermediate = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: rowCount * dw)
        defer { intermediate.deallocate() }
        let threads = maxThreads

        source.bytes.withUnsafeBufferPointer { src in
            guard let base = src.baseAddress else { return }
            forEachChunk(rowCount, threads: threads) { rows in
                let line = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: sw)
                defer { line.deallocate() }
                for r in rows {
                    let sourceRow = base + (firstRow + r) * sw * 4
                    let target = intermediate + r * dw
                    if skipX {
                        Premultiplied.loadRow(sourceRow, count: sw, into: target)
                    } else {
                        let lo = xTable.firstInput
                        Premultiplied.loadRow(sourceRow + lo * 4, count: xTable.endInput - lo, into: line + lo)
                        xTable.convolve(line, into: target)
                    }
                }
            }
        }

        return PixelBuffer.make(width: dw, height: dh) { out in
            guard let outBase = out.baseAddress else { return }
            forEachChunk(dh, threads: threads) { rows in
                let acc = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: dw)
                defer { acc.deallocate() }
                for y in rows {
                    let target = outBase + y * dw * 4
                    if skipY {
                        Premultiplied.storeRow(intermediate + y * dw, count: dw, into: target)
                        continue
                    }
                    acc.initialize(repeating: .zero, count: dw)
                    let start = yTable.starts[y] - firstRow
                    let count = yTable.counts[y]
                    yTable.weights.withUnsafeBufferPointer { w in
                        for k in 0..<count {
                            let weight = w[y * yTable.stride + k]
                            let row = intermediate + (start + k) * dw
                            for x in 0..<dw { acc[x] += row[x] * weight }
                        }
                    }
                    Premultiplied.storeRow(acc, count: dw, into: target)
                }
            }
        }
    }

    /// The region clipped to the image; the whole image when `nil` or empty after clipping.
    private static func clip(_ region: ResampleRegion?, width: Int, height: Int) -> ResampleRegion {
        let full = ResampleRegion(x: 0, y: 0, width: Double(width), height: Double(height))
        guard let r = region, r.x.isFinite, r.y.isFinite, r.width.isFinite, r.height.isFinite else { return full }
        let x0 = max(0, min(r.x, Double(width)))
        let y0 = max(0, min(r.y, Double(height)))
        let x1 = max(x0, min(r.x + r.width, Double(width)))
        let y1 = max(y0, min(r.y + r.height, Double(height)))
        guard x1 - x0 > 0, y1 - y0 > 0 else { return full }
        return ResampleRegion(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }
}

/// Runs `body` over `0..<count` split into at most `threads` contiguous chunks, in parallel when
/// `threads > 1`. Returns when every chunk is done.
func forEachChunk(_ count: Int, threads: Int, _ body: (Range<Int>) -> Void) {
    let n = min(max(1, threads), count)
    if n <= 1 {
        body(0..<count)
        return
    }
    // `body` writes only the disjoint rows of its chunk, and `concurrentPerform` returns after
    // every iteration has finished, so sharing the non-escaping closure is race-free.
    nonisolated(unsafe) let work = body
    DispatchQueue.concurrentPerform(iterations: n) { i in
        work((count * i / n)..<(count * (i + 1) / n))
    }
}

/// The precomputed weights of a one-dimensional resampling: for each output index, the first
/// input index, the number of inputs and their normalised weights.
struct KernelTable {
    let starts: [Int]
    let counts: [Int]
    /// `stride` weights per output index (only the first `counts[i]` are used).
    let weights: [Float]
    let stride: Int
    /// The lowest input index any output reads.
    let firstInput: Int
    /// One past the highest input index any output reads.
    let endInput: Int

    /// Weights for mapping `length` input pixels starting at `start` (of `inSize`) onto
    /// `outSize` outputs, with Pillow's conventions (pixel centres at +0.5).
    init(filter: ResizeFilter, inSize: Int, outSize: Int, start: Double, length: Double) {
        let scale = length / Double(outSize)
        let filterScale = max(scale, 1)
        let support = filter.support * filterScale
        let inverse = 1 / filterScale
        let stride = max(1, Int((support * 2 + 2).rounded(.up)))
        var starts = [Int](repeating: 0, count: outSize)
        var counts = [Int](repeating: 0, count: outSize)
        var weights = [Float](repeating: 0, count: outSize * stride)
        var lowest = inSize
        var highest = 0
        var row = [Double](repeating: 0, count: stride)
        for i in 0..<outSize {
            let center = start + (Double(i) + 0.5) * scale
            var lo = max(0, Int((center - support + 0.5).rounded(.down)))
            var hi = min(inSize, Int((center + support + 0.5).rounded(.down)))
            hi = min(hi, lo + stride)
            var total = 0.0
            var n = 0
            if lo < hi {
                for x in lo..<hi {
                    let w = filter.weight((Double(x) - center + 0.5) * inverse)
                    row[n] = w
                    total += w
                    n += 1
                }
            }
            // Trim zero weights at both ends (the box filter has many).
            var first = 0
            while first < n && row[first] == 0 { first += 1 }
            var last = n
            while last > first && row[last - 1] == 0 { last -= 1 }
            if first == last || total == 0 {
                // Degenerate (cannot happen for sane inputs): nearest pixel.
                lo = min(max(0, Int(center)), inSize - 1)
                starts[i] = lo
                counts[i] = 1
                weights[i * stride] = 1
            } else {
                starts[i] = lo + first
                counts[i] = last - first
                for k in first..<last { weights[i * stride + k - first] = Float(row[k] / total) }
            }
            lowest = min(lowest, starts[i])
            highest = max(highest, starts[i] + counts[i])
        }
        self.starts = starts
        self.counts = counts
        self.weights = weights
        self.stride = stride
        self.firstInput = lowest
        self.endInput = max(highest, lowest + 1)
    }

    /// Convolves one row of premultiplied input (indexed by input position) into `output`.
    @inline(__always)
    func convolve(_ input: UnsafePointer<SIMD4<Float>>, into output: UnsafeMutablePointer<SIMD4<Float>>) {
        weights.withUnsafeBufferPointer { w in
            starts.withUnsafeBufferPointer { s in
                counts.withUnsafeBufferPointer { c in
                    for i in 0..<s.count {
                        var acc = SIMD4<Float>.zero
                        let from = input + s[i]
                        let base = i * stride
                        for k in 0..<c[i] { acc += from[k] * w[base + k] }
                        output[i] = acc
                    }
                }
            }
        }
    }
}

extension PixelBuffer {
    /// Resamples the whole buffer to `size` with `filter` (default Lanczos3), premultiplied so
    /// transparent pixels do not darken edges. Returns `self` when the size is unchanged.
    ///
    /// This is the high-quality counterpart of ``downscaled(to:)`` for finishing thumbnails
    /// after a shrink-on-load decode. Sizes below 1 are treated as 1.
    public func resized(to size: PixelSize, filter: ResizeFilter = .lanczos3) -> PixelBuffer {
        Resampler(filter: filter).resample(self, to: size)
    }
}
