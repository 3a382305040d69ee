import Foundation

/// Blurs every frame with a Gaussian (SPEC T-2).
///
/// ``radius`` is the Gaussian's standard deviation σ in pixels (as in CSS `blur()`); the kernel
/// reaches 3σ each way and is applied separably (rows, then columns) on premultiplied pixels,
/// so transparent areas do not darken edges. Pixels beyond the image repeat the edge pixel.
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
        guard radius.isFinite, radius >= 0 else { return nil }
        // More than ~1000 px of blur is a flat colour anyway; cap the kernel size.
        let sigma = min(radius, 1000)
        if sigma < 0.01 { return image }
        let kernel = Self.kernel(sigma: sigma)
        return image.mappingFrames { $0.blurred(kernel: kernel) }
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
        return kernel.withUnsafeBufferPointer { k in
            bytes.withUnsafeBufferPointer { src in
                guard let s = src.baseAddress else { return self }
                // Horizontal: each row padded with its edge pixels, into `plane`.
                for y in 0..<h {
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
