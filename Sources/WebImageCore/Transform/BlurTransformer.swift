import Foundation

/// Blurs every frame with a Gaussian (SPEC T-2).
///
/// ``radius`` is the Gaussian's standard deviation σ in pixels (as in CSS `blur()`). Blurring
/// is separable (rows, then columns) on premultiplied pixels, so transparent areas do not
/// darken edges; pixels beyond the image repeat the edge pixel.
///
/// - σ ≤ ``exactKernelLimit``: a true Gaussian kernel reaching 3σ each way.
/// - Larger σ: three successive box blurs whose widths give the same variance (the classic
///   approximation, error a few levels at most), so the cost does not grow with the radius.
///
/// Key: `BlurTransformer(radius=4)`.
public struct BlurTransformer: ImageTransformer {
    /// Standard deviation σ in pixels. 0 returns the image unchanged.
    public let radius: Double

    /// Creates a blur with standard deviation `radius` pixels.
    public init(radius: Double) {
        self.radius = radius
    }

    public var transformerKey: String { "BlurTransformer(radius=\(keyNumber(radius)))" }

    public func transform(_ image: Image, key: String) -> Image? {
        // 8-bit only: a 16-bit image is converted first (SPEC H-1).
        let image = image.convertedToRGBA8()
        guard radius.isFinite, radius >= 0 else { return nil }
        // More than ~1000 px of blur is a flat colour anyway; cap the kernel size.
        let sigma = min(radius, 1000)
        if sigma < 0.01 { return image }
        if sigma > Self.exactKernelLimit {
            let radii = Self.boxRadii(sigma: sigma)
            return image.mappingFrames { $0.boxBlurred(radii: radii) }
        }
        let kernel = Self.kernel(sigma: sigma)
        return image.mappingFrames { $0.blurred(kernel: kernel) }
    }

    /// Above this σ the blur uses three box passes instead of the exact kernel.
    public static let exactKernelLimit = 8.0

    /// Radii of three box filters whose combined variance approximates σ².
    static func boxRadii(sigma: Double) -> [Int] {
        let n = 3.0
        var lower = Int((12 * sigma * sigma / n + 1).squareRoot().rounded(.down))
        if lower % 2 == 0 { lower -= 1 }
        let upper = lower + 2
        let l = Double(lower)
        let m = ((12 * sigma * sigma - n * l * l - 4 * n * l - 3 * n) / (-4 * l - 4)).rounded()
        return (0..<3).map { i in (Double(i) < m ? lower : upper) / 2 }
    }

    /// Normalised Gaussian weights for offsets `-n...n`, `n = ⌈3σ⌉`.
    static func kernel(sigma: Double) -> [Float] {
        let n = max(1, Int((3 * sigma).rounded(.up)))
        var values = (-n...n).map { i in exp(-Double(i * i) / (2 * sigma * sigma)) }
        let total = values.reduce(0, +)
        for i in values.indices { values[i] /= total }
        return values.map(Float.init)
    }
}

extension PixelBuffer {
    /// Separable convolution with a symmetric `kernel` (odd length), edges clamped.
    func blurred(kernel: [Float]) -> PixelBuffer {
        let w = width
        let h = height
        let n = kernel.count / 2
        let plane = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: w * h)
        defer { plane.deallocate() }
        let line = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: w + 2 * n)
        defer { line.deallocate() }
        // Once set, the rows left are not computed (the caller discards the result).
        let cancellation = WorkCancellation.current
        return kernel.withUnsafeBufferPointer { k in
            bytes.withUnsafeBufferPointer { src in
                guard let s = src.baseAddress else { return self }
                // Horizontal: each row padded with its edge pixels, into `plane`.
                for y in 0..<h {
                    if cancellation?.isCancelled == true { return self }
                    Premultiplied.loadRow(s + y * w * 4, count: w, into: line + n)
                    for i in 0..<n {
                        line[i] = line[n]
                        line[n + w + i] = line[n + w - 1]
                    }
                    let target = plane + y * w
                    for x in 0..<w {
                        var acc = SIMD4<Float>.zero
                        for j in 0..<k.count { acc += line[x + j] * k[j] }
                        target[x] = acc
                    }
                }
                // Vertical: accumulate whole rows (clamped indices) into `line`, then store.
                return PixelBuffer.make(width: w, height: h) { out in
                    guard let o = out.baseAddress else { return }
                    for y in 0..<h {
                        if cancellation?.isCancelled == true {
                            out.update(repeating: 0)  // not uninitialised memory; the caller discards it
                            return
                        }
                        line.initialize(repeating: .zero, count: w)
                        for j in 0..<k.count {
                            let sy = min(h - 1, max(0, y + j - n))
                            let row = plane + sy * w
                            let weight = k[j]
                            for x in 0..<w { line[x] += row[x] * weight }
                        }
                        Premultiplied.storeRow(line, count: w, into: o + y * w * 4)
                    }
                }
            }
        }
    }
}

extension PixelBuffer {
    /// Three box blurs of the given radii along rows, then along columns, edges clamped.
    func boxBlurred(radii: [Int]) -> PixelBuffer {
        let w = width
        let h = height
        let longest = max(w, h)
        let plane = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: w * h)
        defer { plane.deallocate() }
        let a = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: longest)
        defer { a.deallocate() }
        let b = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: longest)
        defer { b.deallocate() }
        /// Blurs `a[0..<count]` three times (via `b`); the result ends in `b`.
        func blurLine(_ count: Int) {
            var from = a
            var to = b
            for (pass, r) in radii.enumerated() {
                Self.boxLine(from, into: to, count: count, radius: r)
                if pass < radii.count - 1 { swap(&from, &to) }
            }
            if to != b { b.update(from: to, count: count) }
        }
        let cancellation = WorkCancellation.current
        return bytes.withUnsafeBufferPointer { src in
            guard let s = src.baseAddress else { return self }
            for y in 0..<h {
                if cancellation?.isCancelled == true { return self }
                Premultiplied.loadRow(s + y * w * 4, count: w, into: a)
                blurLine(w)
                (plane + y * w).update(from: b, count: w)
            }
            for x in 0..<w {
                if cancellation?.isCancelled == true { return self }
                for y in 0..<h { a[y] = plane[y * w + x] }
                blurLine(h)
                for y in 0..<h { plane[y * w + x] = b[y] }
            }
            return PixelBuffer.make(width: w, height: h) { out in
                guard let o = out.baseAddress else { return }
                Premultiplied.storeRow(plane, count: w * h, into: o)
            }
        }
    }

    /// One box blur of radius `r` over `count` values with clamped edges (running sum).
    static func boxLine(
        _ input: UnsafeMutablePointer<SIMD4<Float>>, into output: UnsafeMutablePointer<SIMD4<Float>>,
        count: Int, radius r: Int
    ) {
        let last = count - 1
        let scale = 1 / Float(2 * r + 1)
        var sum = SIMD4<Float>.zero
        for i in -r...r { sum += input[min(last, max(0, i))] }
        for i in 0..<count {
            output[i] = sum * scale
            sum += input[min(last, i + r + 1)] - input[max(0, i - r)]
        }
    }
}

extension PixelBuffer {
    /// A blur with the exact Gaussian kernel whatever σ (slow for large σ; for comparisons).
    public func blurredExactly(sigma: Double) -> PixelBuffer {
        blurred(kernel: BlurTransformer.kernel(sigma: max(0.01, min(sigma, 1000))))
    }
}
