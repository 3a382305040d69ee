import CMetricKernels

/// The pooled error maps of one scale: per channel (X, Y, B), the 1-norm and 4-norm of the SSIM
/// map and of the two edge maps (artifact: edges in the distorted image where the reference is
/// smooth; detail loss: the reverse). Laid out as libjxl's tool lays them out.
struct ScaleScores: Sendable {
    /// `[channel * 2 + norm]`: norm 0 is the mean, norm 1 the 4-norm.
    var ssim = [Double](repeating: 0, count: 6)
    /// `[channel * 4 + k]`: k 0/1 artifact mean/4-norm, k 2/3 detail-loss mean/4-norm.
    var edge = [Double](repeating: 0, count: 12)

    /// The scores from the map sums of ``ScaleMaps`` (`[channel * 6 + k]`, k as
    /// `wi_ssim2_map_row` sums them) over `pixels` pixels.
    init(sums: UnsafePointer<Double>, pixels: Int) {
        let perPixel = 1.0 / Double(pixels)
        for channel in 0..<3 {
            let s = (0..<6).map { sums[channel * 6 + $0] * perPixel }
            ssim[channel * 2] = s[0]
            ssim[channel * 2 + 1] = s[1].squareRoot().squareRoot()
            edge[channel * 4] = s[2]
            edge[channel * 4 + 1] = s[3].squareRoot().squareRoot()
            edge[channel * 4 + 2] = s[4]
            edge[channel * 4 + 3] = s[5].squareRoot().squareRoot()
        }
    }
}

/// Computes one scale's maps, row by row, without whole blurred planes.
///
/// Each input row is converted to XYB (a ring of 5 rows per image and channel, with zero margins
/// that are the blur's zero padding), its five blur inputs (the two images, their squares and
/// their product) are blurred along the row into a ring of 9 rows, and as soon as the 9 rows
/// around an output row are there, the column blur gives the means, variances and covariance
/// of that row, from which its SSIM and edge terms are summed. Everything stays in a few
/// hundred KB for a 512-pixel width. With a ``PreparedScale`` of the reference, only the
/// distorted image's three blur inputs are blurred and the reference's are read.
///
/// The loops are C (`CMetricKernels`): 8-float vectors, with AVX2 and FMA where the CPU has them.
///
/// Not thread-safe: one owner at a time (the scorer that holds it).
final class ScaleMaps {
    static let margin = 8
    private static let xybRows = 5
    private static let blurRows = 9

    /// The C kernel set (`wi_ssim2_kernels_level`).
    let level: Int32
    private let xyb = FloatScratch()
    private let products = FloatScratch()
    private let blurred = FloatScratch()
    private let zeros = FloatScratch()
    private let sums = UnsafeMutablePointer<Double>.allocate(capacity: 18)
    /// The 9 row pointers per blurred quantity of the output row being measured (5 × 9).
    private let columns = UnsafeMutablePointer<UnsafePointer<Float>?>.allocate(capacity: 5 * 9)
    private let outputs = UnsafeMutablePointer<UnsafeMutablePointer<Float>?>.allocate(capacity: 5)

    init(level: Int32) { self.level = level }

    deinit {
        sums.deallocate()
        columns.deallocate()
        outputs.deallocate()
    }

    /// Measures one scale of `size`: `rows(y)` gives row `y` of both images in linear light.
    func measure(size: PixelSize, rows: (Int) -> (reference: LinearRGBRows, distorted: LinearRGBRows)) -> ScaleScores {
        let (width, height) = (size.width, size.height)
        let padded = (width + 7) & ~7
        let stride = padded + 2 * Self.margin
        xyb.reserve(2 * 3 * Self.xybRows * stride)
        xyb.zero(2 * 3 * Self.xybRows * stride)
        products.reserve(3 * stride)
        blurred.reserve(3 * 5 * Self.blurRows * padded)
        let zeroRow = zeroRow(padded)
        sums.update(repeating: 0, count: 18)

        let xybBase = xyb.pointer
        func xybRow(image: Int, channel: Int, y: Int) -> UnsafeMutablePointer<Float> {
            xybBase + ((image * 3 + channel) * Self.xybRows + y % Self.xybRows) * stride + Self.margin
        }
        let blurBase = blurred.pointer
        func blurRow(channel: Int, quantity: Int, y: Int) -> UnsafeMutablePointer<Float> {
            blurBase + ((channel * 5 + quantity) * Self.blurRows + y % Self.blurRows) * padded
        }
        GaussianTaps.ssimulacra2.withUnsafeBufferPointer { tapsBuffer in
            let taps = tapsBuffer.baseAddress!
            for yIn in 0..<(height + 4) {
                if yIn < height {
                    let (reference, distorted) = rows(yIn)
                    convert(
                        reference, width: width, padded: padded, x: xybRow(image: 0, channel: 0, y: yIn),
                        y: xybRow(image: 0, channel: 1, y: yIn), b: xybRow(image: 0, channel: 2, y: yIn))
                    convert(
                        distorted, width: width, padded: padded, x: xybRow(image: 1, channel: 0, y: yIn),
                        y: xybRow(image: 1, channel: 1, y: yIn), b: xybRow(image: 1, channel: 2, y: yIn))
                    for channel in 0..<3 {
                        for quantity in 0..<5 { outputs[quantity] = blurRow(channel: channel, quantity: quantity, y: yIn) }
                        wi_ssim2_row_blurs(
                            level, xybRow(image: 0, channel: channel, y: yIn), xybRow(image: 1, channel: channel, y: yIn),
                            padded, taps, products.pointer, outputs)
                        for quantity in 0..<5 { clearPadding(outputs[quantity]!, from: width, to: padded) }
                    }
                }
                let y = yIn - 4
                guard y >= 0 else { continue }
                for channel in 0..<3 {
                    for quantity in 0..<5 {
                        for k in -4...4 {
                            columns[quantity * 9 + k + 4] =
                                y + k >= 0 && y + k < height
                                ? UnsafePointer(blurRow(channel: channel, quantity: quantity, y: y + k)) : zeroRow
                        }
                    }
                    wi_ssim2_map_row(
                        level, xybRow(image: 0, channel: channel, y: y), xybRow(image: 1, channel: channel, y: y),
                        columns, nil, nil, padded, taps, sums + channel * 6)
                }
            }
        }
        return ScaleScores(sums: sums, pixels: width * height)
    }

    /// Measures one scale of a prepared reference: `rows(y)` gives row `y` of the distorted
    /// image in linear light.
    func measure(prepared reference: PreparedScale, rows: (Int) -> LinearRGBRows) -> ScaleScores {
        let (width, height) = (reference.size.width, reference.size.height)
        let padded = reference.padded
        let stride = padded + 2 * Self.margin
        xyb.reserve(3 * Self.xybRows * stride)
        xyb.zero(3 * Self.xybRows * stride)
        products.reserve(2 * stride)
        blurred.reserve(3 * 3 * Self.blurRows * padded)
        let zeroRow = zeroRow(padded)
        sums.update(repeating: 0, count: 18)

        let xybBase = xyb.pointer
        func xybRow(channel: Int, y: Int) -> UnsafeMutablePointer<Float> {
            xybBase + (channel * Self.xybRows + y % Self.xybRows) * stride + Self.margin
        }
        let blurBase = blurred.pointer
        func blurRow(channel: Int, quantity: Int, y: Int) -> UnsafeMutablePointer<Float> {
            blurBase + ((channel * 3 + quantity) * Self.blurRows + y % Self.blurRows) * padded
        }
        GaussianTaps.ssimulacra2.withUnsafeBufferPointer { tapsBuffer in
            reference.xyb.withUnsafeBufferPointer { referenceXYB in
                reference.mu.withUnsafeBufferPointer { mu in
                    reference.sigma.withUnsafeBufferPointer { sigma in
                        let taps = tapsBuffer.baseAddress!
                        for yIn in 0..<(height + 4) {
                            if yIn < height {
                                convert(
                                    rows(yIn), width: width, padded: padded, x: xybRow(channel: 0, y: yIn),
                                    y: xybRow(channel: 1, y: yIn), b: xybRow(channel: 2, y: yIn))
                                for channel in 0..<3 {
                                    for quantity in 0..<3 { outputs[quantity] = blurRow(channel: channel, quantity: quantity, y: yIn) }
                                    wi_ssim2_row_blurs_distorted(
                                        level, referenceXYB.baseAddress! + reference.xybOffset(channel: channel, y: yIn),
                                        xybRow(channel: channel, y: yIn), padded, taps, products.pointer, outputs)
                                    for quantity in 0..<3 { clearPadding(outputs[quantity]!, from: width, to: padded) }
                                }
                            }
                            let y = yIn - 4
                            guard y >= 0 else { continue }
                            for channel in 0..<3 {
                                for quantity in 0..<3 {
                                    for k in -4...4 {
                                        columns[quantity * 9 + k + 4] =
                                            y + k >= 0 && y + k < height
                                            ? UnsafePointer(blurRow(channel: channel, quantity: quantity, y: y + k)) : zeroRow
                                    }
                                }
                                let plane = reference.planeOffset(channel: channel, y: y)
                                wi_ssim2_map_row(
                                    level, referenceXYB.baseAddress! + reference.xybOffset(channel: channel, y: y),
                                    xybRow(channel: channel, y: y), columns, mu.baseAddress! + plane,
                                    sigma.baseAddress! + plane, padded, taps, sums + channel * 6)
                            }
                        }
                    }
                }
            }
        }
        return ScaleScores(sums: sums, pixels: width * height)
    }

    /// The reference's half of one scale: its XYB and its fully blurred value and square.
    static func prepare(size: PixelSize, level: Int32, rows: (Int) -> LinearRGBRows) -> PreparedScale {
        let (width, height) = (size.width, size.height)
        let padded = (width + 7) & ~7
        let layout = PreparedLayout(size: size)
        var xybPlanes = [Float](repeating: 0, count: layout.xybCount)
        var muPlanes = [Float](repeating: 0, count: layout.planeCount)
        var sigmaPlanes = muPlanes
        let ring = FloatScratch()
        ring.reserve(3 * 2 * blurRows * padded)
        let scratch = FloatScratch()
        scratch.reserve(padded + 2 * margin)
        let zeros = FloatScratch()
        zeros.reserve(padded)
        zeros.zero(padded)
        let zeroRow = UnsafePointer(zeros.pointer)
        let columns = UnsafeMutablePointer<UnsafePointer<Float>?>.allocate(capacity: 2 * 9)
        let outputs = UnsafeMutablePointer<UnsafeMutablePointer<Float>?>.allocate(capacity: 2)
        defer {
            columns.deallocate()
            outputs.deallocate()
        }
        func blurRow(channel: Int, quantity: Int, y: Int) -> UnsafeMutablePointer<Float> {
            ring.pointer + ((channel * 2 + quantity) * blurRows + y % blurRows) * padded
        }
        GaussianTaps.ssimulacra2.withUnsafeBufferPointer { tapsBuffer in
            let taps = tapsBuffer.baseAddress!
            xybPlanes.withUnsafeMutableBufferPointer { xybBuffer in
                muPlanes.withUnsafeMutableBufferPointer { muBuffer in
                    sigmaPlanes.withUnsafeMutableBufferPointer { sigmaBuffer in
                        let xyb = xybBuffer.baseAddress!
                        for yIn in 0..<(height + 4) {
                            if yIn < height {
                                let source = rows(yIn)
                                let x = xyb + layout.xybOffset(channel: 0, y: yIn)
                                let yy = xyb + layout.xybOffset(channel: 1, y: yIn)
                                let b = xyb + layout.xybOffset(channel: 2, y: yIn)
                                wi_ssim2_xyb(level, source.r, source.g, source.b, padded, x, yy, b)
                                clearPadding(x, from: width, to: padded)
                                clearPadding(yy, from: width, to: padded)
                                clearPadding(b, from: width, to: padded)
                                for channel in 0..<3 {
                                    for quantity in 0..<2 { outputs[quantity] = blurRow(channel: channel, quantity: quantity, y: yIn) }
                                    wi_ssim2_row_blurs_reference(
                                        level, xyb + layout.xybOffset(channel: channel, y: yIn), padded, taps, scratch.pointer,
                                        outputs)
                                    for quantity in 0..<2 { clearPadding(outputs[quantity]!, from: width, to: padded) }
                                }
                            }
                            let y = yIn - 4
                            guard y >= 0 else { continue }
                            for channel in 0..<3 {
                                for quantity in 0..<2 {
                                    for k in -4...4 {
                                        columns[quantity * 9 + k + 4] =
                                            y + k >= 0 && y + k < height
                                            ? UnsafePointer(blurRow(channel: channel, quantity: quantity, y: y + k)) : zeroRow
                                    }
                                }
                                let plane = layout.planeOffset(channel: channel, y: y)
                                outputs[0] = muBuffer.baseAddress! + plane
                                outputs[1] = sigmaBuffer.baseAddress! + plane
                                wi_ssim2_column_blurs(level, columns, 2, padded, taps, outputs)
                            }
                        }
                    }
                }
            }
        }
        return PreparedScale(layout: layout, xyb: xybPlanes, mu: muPlanes, sigma: sigmaPlanes)
    }

    private func zeroRow(_ count: Int) -> UnsafePointer<Float> {
        zeros.reserve(count)
        zeros.zero(count)
        return UnsafePointer(zeros.pointer)
    }

    /// XYB rows of `source` (its padding columns set to zero).
    private func convert(
        _ source: LinearRGBRows, width: Int, padded: Int, x: UnsafeMutablePointer<Float>, y: UnsafeMutablePointer<Float>,
        b: UnsafeMutablePointer<Float>
    ) {
        wi_ssim2_xyb(level, source.r, source.g, source.b, padded, x, y, b)
        clearPadding(x, from: width, to: padded)
        clearPadding(y, from: width, to: padded)
        clearPadding(b, from: width, to: padded)
    }
}

/// Sets `row[from..<to]` to zero.
@inline(__always)
private func clearPadding(_ row: UnsafeMutablePointer<Float>, from: Int, to: Int) {
    if to > from { (row + from).update(repeating: 0, count: to - from) }
}

/// Where the rows of a prepared scale lie: XYB rows with zero margins (as the row blurs read
/// them), μ and σ² rows of the padded width.
struct PreparedLayout: Sendable {
    let size: PixelSize
    /// The width rounded up to 8.
    let padded: Int

    init(size: PixelSize) {
        self.size = size
        padded = (size.width + 7) & ~7
    }

    var xybCount: Int { 3 * size.height * (padded + 2 * ScaleMaps.margin) }
    var planeCount: Int { 3 * size.height * padded }

    /// Where row `y` of channel `channel` of the XYB planes starts (after its left margin).
    func xybOffset(channel: Int, y: Int) -> Int {
        (channel * size.height + y) * (padded + 2 * ScaleMaps.margin) + ScaleMaps.margin
    }

    /// Where row `y` of channel `channel` of μ and σ² starts.
    func planeOffset(channel: Int, y: Int) -> Int { (channel * size.height + y) * padded }
}

/// One scale of a prepared reference: its XYB planes and, per channel, its blurred value μ and
/// blurred square σ² (padding columns zero), laid out as ``PreparedLayout`` says.
struct PreparedScale: Sendable {
    let layout: PreparedLayout
    let xyb: [Float]
    let mu: [Float]
    let sigma: [Float]

    var size: PixelSize { layout.size }
    var padded: Int { layout.padded }
    /// Floats held (what the scale costs in memory, × 4 bytes).
    var floatCount: Int { xyb.count + mu.count + sigma.count }

    func xybOffset(channel: Int, y: Int) -> Int { layout.xybOffset(channel: channel, y: y) }
    func planeOffset(channel: Int, y: Int) -> Int { layout.planeOffset(channel: channel, y: y) }
}
