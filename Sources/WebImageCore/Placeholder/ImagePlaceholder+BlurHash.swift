import Foundation

extension ImagePlaceholder {
    /// The BlurHash of `image` (Wolt's algorithm, https://blurha.sh).
    ///
    /// Computed from ``encoderInput(of:)`` (the first frame within 100 × 100 pixels). Colour
    /// channels are read as stored and alpha is ignored, as the reference encoder does.
    /// - Parameters:
    ///   - image: the image; only its first frame is used.
    ///   - components: the cosine components; `nil` chooses them from the aspect ratio
    ///     with ``BlurHashComponents/forAspectRatio(width:height:)``.
    public static func blurHash(of image: Image, components: BlurHashComponents? = nil) -> String {
        let pixels = encoderInput(of: image)
        return blurHash(
            ofPixels: pixels, components: components ?? .forAspectRatio(width: pixels.width, height: pixels.height))
    }

    /// The BlurHash of these pixels; larger than 100 × 100 pixels they are first reduced with
    /// ``encoderInput(of:)``, so the cost stays bounded whatever the input.
    ///
    /// Each component is `norm · Σ cos(π·i·x/w)·cos(π·j·y/h)·linear(pixel) / (w·h)` (norm 1
    /// for the DC term, 2 for the others) over linear-light RGB; the DC term is stored as sRGB
    /// in 4 base-83 digits, the others quantised to 19 levels per channel after a square root,
    /// relative to the largest one.
    public static func blurHash(ofPixels input: PixelBuffer, components: BlurHashComponents) -> String {
        let pixels = reduced(input)
        let w = pixels.width
        let h = pixels.height
        let width = Double(w)
        let height = Double(h)
        // Linear RGB of every pixel, rows top to bottom.
        var linear = [Double](repeating: 0, count: w * h * 3)
        let table = SRGBTransfer.toLinear
        pixels.bytes.withUnsafeBufferPointer { src in
            for p in 0..<(w * h) {
                linear[p * 3] = table[Int(src[p * 4])]
                linear[p * 3 + 1] = table[Int(src[p * 4 + 1])]
                linear[p * 3 + 2] = table[Int(src[p * 4 + 2])]
            }
        }
        // cos(π·i·x/w) for every i and x, and the same down the rows: the same expressions as
        // the reference encoders, so every sum is bit for bit theirs.
        var cosX = [Double](repeating: 0, count: components.x * w)
        for i in 0..<components.x {
            for x in 0..<w { cosX[i * w + x] = cos(Double.pi * Double(i) * Double(x) / width) }
        }
        var cosY = [Double](repeating: 0, count: components.y * h)
        for j in 0..<components.y {
            for y in 0..<h { cosY[j * h + y] = cos(Double.pi * Double(j) * Double(y) / height) }
        }
        var factors: [SIMD3<Double>] = []
        factors.reserveCapacity(components.x * components.y)
        var maximumAC = 0.0
        for j in 0..<components.y {
            for i in 0..<components.x {
                let norm: Double = i == 0 && j == 0 ? 1 : 2
                var r = 0.0, g = 0.0, b = 0.0
                for y in 0..<h {
                    let fy = cosY[j * h + y]
                    for x in 0..<w {
                        let basis = norm * cosX[i * w + x] * fy
                        let p = (y * w + x) * 3
                        r += basis * linear[p]
                        g += basis * linear[p + 1]
                        b += basis * linear[p + 2]
                    }
                }
                let scale = width * height
                let factor = SIMD3(r / scale, g / scale, b / scale)
                factors.append(factor)
                if i != 0 || j != 0 {
                    maximumAC = max(maximumAC, abs(factor.x), abs(factor.y), abs(factor.z))
                }
            }
        }

        var out: [UInt8] = []
        out.reserveCapacity(4 + 2 * factors.count)
        Base83.append((components.x - 1) + (components.y - 1) * 9, length: 1, to: &out)
        let quantisedMaximum = Int(max(0, min(82, (maximumAC * 166 - 0.5).rounded(.down))))
        Base83.append(quantisedMaximum, length: 1, to: &out)
        let dc = factors[0]
        let dcValue = SRGBTransfer.toSRGB(dc.x) << 16 + SRGBTransfer.toSRGB(dc.y) << 8 + SRGBTransfer.toSRGB(dc.z)
        Base83.append(dcValue, length: 4, to: &out)
        let acNorm = Double(quantisedMaximum + 1) / 166
        func quantise(_ value: Double) -> Int {
            // sign(v)·|v|^0.5 with `pow`, as the reference encoders compute it.
            let scaled = value / acNorm
            let signed = Double(signOf: scaled, magnitudeOf: pow(abs(scaled), 0.5))
            return Int(max(0, min(18, (signed * 9 + 9.5).rounded(.down))))
        }
        for factor in factors.dropFirst() {
            Base83.append(quantise(factor.x) * 19 * 19 + quantise(factor.y) * 19 + quantise(factor.z), length: 2, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The components a BlurHash string was made with, or `nil` when the string is not a
    /// BlurHash (wrong length or a character outside the base-83 alphabet).
    public static func blurHashComponents(_ blurHash: String) -> BlurHashComponents? {
        try? BlurHashPayload(blurHash).components
    }

    /// Decodes a BlurHash into a `width` × `height` opaque image.
    ///
    /// - Parameters:
    ///   - blurHash: the BlurHash string (6 to 166 base-83 characters).
    ///   - width: 1…``maxDecodedSide`` pixels; a BlurHash holds no size, so pass the
    ///     aspect ratio of the image it stands for (small: it is blurred anyway, scale it up to
    ///     show it).
    ///   - height: 1…``maxDecodedSide`` pixels.
    ///   - punch: contrast: the AC components are multiplied by it (1: as encoded); clamped
    ///     to 0…10, and a value that is not finite counts as 1.
    /// - Throws: ``WebImageError/badImageData(reason:)`` for a string that is not a
    ///   BlurHash or a size below 1 pixel; ``WebImageError/imageTooLarge(reason:)`` for a size
    ///   above ``maxDecodedSide``.
    public static func image(
        fromBlurHash blurHash: String, width: Int = 32, height: Int = 32, punch: Double = 1
    ) throws(WebImageError) -> Image {
        try checkDecodedSize(width: width, height: height)
        let payload = try BlurHashPayload(blurHash)
        let punch = punch.isFinite ? min(10, max(0, punch)) : 1
        let colors = payload.colors(punch: punch)
        let nx = payload.components.x
        let ny = payload.components.y
        var cosX = [Double](repeating: 0, count: nx * width)
        for i in 0..<nx {
            for x in 0..<width { cosX[i * width + x] = cos(Double.pi * Double(x) * Double(i) / Double(width)) }
        }
        var cosY = [Double](repeating: 0, count: ny * height)
        for j in 0..<ny {
            for y in 0..<height { cosY[j * height + y] = cos(Double.pi * Double(y) * Double(j) / Double(height)) }
        }
        let pixels = PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    var sum = SIMD3<Double>(repeating: 0)
                    for j in 0..<ny {
                        for i in 0..<nx {
                            let basis: Double = cosX[i * width + x] * cosY[j * height + y]
                            let color: SIMD3<Double> = colors[i + j * nx]
                            sum += color * basis
                        }
                    }
                    let o = (y * width + x) * 4
                    out[o] = UInt8(SRGBTransfer.toSRGB(sum.x))
                    out[o + 1] = UInt8(SRGBTransfer.toSRGB(sum.y))
                    out[o + 2] = UInt8(SRGBTransfer.toSRGB(sum.z))
                    out[o + 3] = 255
                }
            }
        }
        return Image(pixels: pixels, hasAlpha: false)
    }

    /// Throws unless `width` × `height` is a size a placeholder may be decoded at.
    static func checkDecodedSize(width: Int, height: Int) throws(WebImageError) {
        guard width >= 1, height >= 1 else {
            throw .badImageData(reason: "a placeholder image needs at least 1x1 pixels, not \(width)x\(height)")
        }
        guard width <= maxDecodedSide, height <= maxDecodedSide else {
            throw .imageTooLarge(
                reason: "a placeholder image is at most \(maxDecodedSide)x\(maxDecodedSide) pixels, not \(width)x\(height)")
        }
    }
}
