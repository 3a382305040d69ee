/// The pooled error maps of one scale: per channel (X, Y, B), the 1-norm and 4-norm of the SSIM
/// map and of the two edge maps (artifact: edges in the distorted image where the reference is
/// smooth; detail loss: the reverse). Laid out as libjxl's tool lays them out.
struct ScaleScores: Sendable {
    /// `[channel * 2 + norm]`: norm 0 is the mean, norm 1 the 4-norm.
    var ssim = [Double](repeating: 0, count: 6)
    /// `[channel * 4 + k]`: k 0/1 artifact mean/4-norm, k 2/3 detail-loss mean/4-norm.
    var edge = [Double](repeating: 0, count: 12)
}

/// Computes one scale's maps, row by row, without whole blurred planes.
///
/// Each input row is converted to XYB (a ring of 5 rows per image and channel, with zero margins
/// that are the blur's zero padding), its five blur inputs (the two images, their squares and
/// their product) are blurred along the row into a ring of 9 rows, and as soon as the 9 rows
/// around an output row are there, the column blur gives the means, variances and covariance
/// of that row, from which its SSIM and edge terms are summed. Everything stays in a few
/// hundred KB for a 512-pixel width, in SIMD over 8 pixels.
///
/// Not thread-safe: one owner at a time (the scorer that holds it).
final class ScaleMaps {
    typealias V8 = SIMD8<Float>

    /// SSIMULACRA2's SSIM constant (there is no C1: the luminance term has no denominator).
    private static let c2: Float = 0.0009
    private static let margin = 8
    private static let xybRows = 5
    private static let blurRows = 9

    private let xyb = FloatScratch()
    private let products = FloatScratch()
    private let blurred = FloatScratch()
    private let zeros = FloatScratch()
    private let taps = GaussianTaps.ssimulacra2
    /// The 9 row pointers per blurred quantity of the output row being measured (5 × 9).
    private let columns = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: 5 * 9)

    deinit { columns.deallocate() }

    /// Measures one scale of `size`: `rows(y)` gives row `y` of both images in linear light.
    func measure(size: PixelSize, rows: (Int) -> (reference: LinearRGBRows, distorted: LinearRGBRows)) -> ScaleScores {
        precondition(taps.count == 5, "SSIMULACRA2's blur has taps for offsets 0…4")
        let width = size.width
        let height = size.height
        let padded = (width + 7) & ~7
        let stride = padded + 2 * Self.margin
        xyb.reserve(2 * 3 * Self.xybRows * stride)
        xyb.zero(2 * 3 * Self.xybRows * stride)
        products.reserve(3 * stride)
        blurred.reserve(3 * 5 * Self.blurRows * padded)
        zeros.reserve(padded)
        zeros.zero(padded)

        let xybBase = xyb.pointer
        func xybRow(image: Int, channel: Int, y: Int) -> UnsafeMutablePointer<Float> {
            xybBase + ((image * 3 + channel) * Self.xybRows + y % Self.xybRows) * stride
        }
        let blurBase = blurred.pointer
        func blurRow(channel: Int, quantity: Int, y: Int) -> UnsafeMutablePointer<Float> {
            blurBase + ((channel * 5 + quantity) * Self.blurRows + y % Self.blurRows) * padded
        }

        var sums = [Double](repeating: 0, count: 3 * 6)
        let t = (taps[0], taps[1], taps[2], taps[3], taps[4])
        let zeroRow = UnsafePointer(zeros.pointer)
        let p11 = products.pointer
        let p22 = p11 + stride
        let p12 = p22 + stride

        for yIn in 0..<(height + 4) {
            if yIn < height {
                let (reference, distorted) = rows(yIn)
                for image in 0..<2 {
                    let source = image == 0 ? reference : distorted
                    let x = xybRow(image: image, channel: 0, y: yIn) + Self.margin
                    let yy = xybRow(image: image, channel: 1, y: yIn) + Self.margin
                    let b = xybRow(image: image, channel: 2, y: yIn) + Self.margin
                    XYBRows.convert(source, count: padded, x: x, y: yy, b: b)
                    for column in width..<padded {
                        x[column] = 0
                        yy[column] = 0
                        b[column] = 0
                    }
                }
                for channel in 0..<3 {
                    let a = xybRow(image: 0, channel: channel, y: yIn)
                    let b = xybRow(image: 1, channel: channel, y: yIn)
                    Self.multiply(a, b, count: stride, into: p11, p22, p12)
                    for quantity in 0..<5 {
                        let out = blurRow(channel: channel, quantity: quantity, y: yIn)
                        let source: UnsafeMutablePointer<Float> =
                            switch quantity {
                            case 0: a
                            case 1: b
                            case 2: p11
                            case 3: p22
                            default: p12
                            }
                        Self.blurAlongRow(source + Self.margin, count: padded, taps: t, into: out)
                        for column in width..<padded { out[column] = 0 }
                    }
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
                let rowSums = Self.mapRow(
                    reference: xybRow(image: 0, channel: channel, y: y) + Self.margin,
                    distorted: xybRow(image: 1, channel: channel, y: y) + Self.margin,
                    blurredRows: UnsafePointer(columns), count: padded, taps: t)
                for k in 0..<6 { sums[channel * 6 + k] += rowSums[k] }
            }
        }

        var scores = ScaleScores()
        let perPixel = 1.0 / Double(width * height)
        for channel in 0..<3 {
            let s = sums[(channel * 6)..<(channel * 6 + 6)].map { $0 * perPixel }
            scores.ssim[channel * 2] = s[0]
            scores.ssim[channel * 2 + 1] = s[1].squareRoot().squareRoot()
            scores.edge[channel * 4] = s[2]
            scores.edge[channel * 4 + 1] = s[3].squareRoot().squareRoot()
            scores.edge[channel * 4 + 2] = s[4]
            scores.edge[channel * 4 + 3] = s[5].squareRoot().squareRoot()
        }
        return scores
    }

    /// `a²`, `b²` and `a·b` over `count` floats (a multiple of 8).
    private static func multiply(
        _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int,
        into aa: UnsafeMutablePointer<Float>, _ bb: UnsafeMutablePointer<Float>, _ ab: UnsafeMutablePointer<Float>
    ) {
        var i = 0
        while i < count {
            let va = XYBRows.load(a + i)
            let vb = XYBRows.load(b + i)
            XYBRows.store(va * va, aa + i)
            XYBRows.store(vb * vb, bb + i)
            XYBRows.store(va * vb, ab + i)
            i += 8
        }
    }

    /// The symmetric 9-tap blur along a row: `source` is readable 4 floats before its first and
    /// after its last of `count` (the zero margins).
    @inline(__always)
    private static func blurAlongRow(
        _ source: UnsafePointer<Float>, count: Int, taps t: (Float, Float, Float, Float, Float),
        into out: UnsafeMutablePointer<Float>
    ) {
        var i = 0
        while i < count {
            let s = source + i
            var v = t.0 * XYBRows.load(s)
            v += t.1 * (XYBRows.load(s - 1) + XYBRows.load(s + 1))
            v += t.2 * (XYBRows.load(s - 2) + XYBRows.load(s + 2))
            v += t.3 * (XYBRows.load(s - 3) + XYBRows.load(s + 3))
            v += t.4 * (XYBRows.load(s - 4) + XYBRows.load(s + 4))
            XYBRows.store(v, out + i)
            i += 8
        }
    }

    /// The column blur of quantity `q` at column `i`: `rows` holds 9 row pointers per quantity
    /// (offsets −4…4; out-of-image rows point at zeros).
    @inline(__always)
    private static func blurAlongColumn(
        _ rows: UnsafePointer<UnsafePointer<Float>>, _ q: Int, _ i: Int, taps t: (Float, Float, Float, Float, Float)
    ) -> V8 {
        let r = rows + q * 9
        var v = t.0 * XYBRows.load(r[4] + i)
        v += t.1 * (XYBRows.load(r[3] + i) + XYBRows.load(r[5] + i))
        v += t.2 * (XYBRows.load(r[2] + i) + XYBRows.load(r[6] + i))
        v += t.3 * (XYBRows.load(r[1] + i) + XYBRows.load(r[7] + i))
        v += t.4 * (XYBRows.load(r[0] + i) + XYBRows.load(r[8] + i))
        return v
    }

    /// One output row's sums: SSIM error (and its 4th power), artifact (and 4th power), detail
    /// loss (and 4th power). Padding columns contribute zero (their values and blurs are zero).
    private static func mapRow(
        reference: UnsafePointer<Float>, distorted: UnsafePointer<Float>,
        blurredRows rows: UnsafePointer<UnsafePointer<Float>>, count: Int, taps t: (Float, Float, Float, Float, Float)
    ) -> SIMD8<Double> {
        var ssim1 = V8(), ssim4 = V8(), artifact1 = V8(), artifact4 = V8(), detail1 = V8(), detail4 = V8()
        let one = V8(repeating: 1)
        let c2 = V8(repeating: Self.c2)
        var i = 0
        while i < count {
            let mu1 = blurAlongColumn(rows, 0, i, taps: t)
            let mu2 = blurAlongColumn(rows, 1, i, taps: t)
            let s11 = blurAlongColumn(rows, 2, i, taps: t)
            let s22 = blurAlongColumn(rows, 3, i, taps: t)
            let s12 = blurAlongColumn(rows, 4, i, taps: t)
            let mu11 = mu1 * mu1
            let mu22 = mu2 * mu2
            let mu12 = mu1 * mu2
            let muDiff = mu1 - mu2
            let numM = one - muDiff * muDiff
            let numS = 2 * (s12 - mu12) + c2
            let denS = (s11 - mu11) + (s22 - mu22) + c2
            let d = XYBRows.positivePart(one - numM * numS / denS)
            ssim1 += d
            let d2 = d * d
            ssim4 += d2 * d2

            let img1 = XYBRows.load(reference + i)
            let img2 = XYBRows.load(distorted + i)
            let e1 = img1 - mu1
            let e2 = img2 - mu2
            let ratio = (one + XYBRows.magnitude(e2)) / (one + XYBRows.magnitude(e1)) - one
            let artifact = XYBRows.positivePart(ratio)
            let detail = XYBRows.positivePart(-ratio)
            artifact1 += artifact
            let a2 = artifact * artifact
            artifact4 += a2 * a2
            detail1 += detail
            let l2 = detail * detail
            detail4 += l2 * l2
            i += 8
        }
        func total(_ v: V8) -> Double {
            var sum = 0.0
            for lane in 0..<8 { sum += Double(v[lane]) }
            return sum
        }
        return SIMD8(total(ssim1), total(ssim4), total(artifact1), total(artifact4), total(detail1), total(detail4), 0, 0)
    }
}
