import Foundation

/// Three rows of linear-light RGB (0…1), one per channel, each readable for the row's width
/// rounded up to 8 (what lies past the width is never used).
struct LinearRGBRows {
    var r: UnsafePointer<Float>
    var g: UnsafePointer<Float>
    var b: UnsafePointer<Float>
}

/// sRGB bytes to linear light for the metric: the exact sRGB transfer function, and for images
/// with alpha the blend on a grey background that SSIMULACRA2 does first (in the encoded
/// values, as libjxl's tool blends before converting to linear).
struct SRGBLinearizer: Sendable {
    /// Linear light of each encoded value, indexed `alpha << 8 | value` (256 × 256 entries)
    /// when blending, or by `value` alone (256 entries) for opaque images.
    let table: [Float]
    /// Whether the table is indexed by alpha too.
    let blends: Bool

    /// Opaque images: the colour channels as they are.
    static let opaque = SRGBLinearizer(table: (0..<256).map { Float(linear(Double($0) / 255)) }, blends: false)

    /// Images with alpha: each colour blended as `a · v + (1 − a) · background` (all 0…1) first.
    static func blending(onto background: Double) -> SRGBLinearizer {
        var table = [Float](repeating: 0, count: 256 * 256)
        for alpha in 0..<256 {
            let a = Double(alpha) / 255
            for value in 0..<256 {
                table[alpha << 8 | value] = Float(linear(a * Double(value) / 255 + (1 - a) * background))
            }
        }
        return SRGBLinearizer(table: table, blends: true)
    }

    /// The sRGB transfer function, encoded to linear.
    static func linear(_ v: Double) -> Double {
        v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// Writes row `y` of the RGBA8 `pixels` (`width` wide) as linear light into `r`, `g`, `b`.
    func linearize(
        _ pixels: UnsafePointer<UInt8>, width: Int, row y: Int,
        r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>
    ) {
        let p = pixels + y * width * 4
        table.withUnsafeBufferPointer { t in
            let t = t.baseAddress!
            if blends {
                for x in 0..<width {
                    let alpha = Int(p[4 * x + 3]) << 8
                    r[x] = t[alpha | Int(p[4 * x])]
                    g[x] = t[alpha | Int(p[4 * x + 1])]
                    b[x] = t[alpha | Int(p[4 * x + 2])]
                }
            } else {
                for x in 0..<width {
                    r[x] = t[Int(p[4 * x])]
                    g[x] = t[Int(p[4 * x + 1])]
                    b[x] = t[Int(p[4 * x + 2])]
                }
            }
        }
    }
}

/// The ×2 downscale between SSIMULACRA2's scales: the mean of each 2×2 block of linear light,
/// with the last row and column repeated when the size is odd (as libjxl's tool does).
enum LinearDownsample {
    /// The size after one downscale.
    static func half(_ size: PixelSize) -> PixelSize {
        PixelSize(width: (size.width + 1) / 2, height: (size.height + 1) / 2)
    }

    /// Row stride of a plane `width` wide: the width rounded up to 8.
    static func stride(_ width: Int) -> Int { (width + 7) & ~7 }

    /// Halves one plane in place: `plane` holds `size` with stride ``stride(_:)``, and holds the
    /// half size with its own stride afterwards.
    static func halveInPlace(_ plane: UnsafeMutablePointer<Float>, size: PixelSize) {
        let out = half(size)
        let inStride = stride(size.width)
        let outStride = stride(out.width)
        // Each output lies at or before the inputs it reads, and after every input already
        // consumed: writing in order never overwrites what is still to be read.
        for oy in 0..<out.height {
            let row0 = plane + 2 * oy * inStride
            let row1 = plane + min(2 * oy + 1, size.height - 1) * inStride
            let o = plane + oy * outStride
            for ox in 0..<out.width {
                let x0 = 2 * ox
                let x1 = min(x0 + 1, size.width - 1)
                o[ox] = (row0[x0] + row0[x1] + row1[x0] + row1[x1]) * 0.25
            }
        }
    }

    /// Writes the half-size linear planes of an RGBA8 image into `r`, `g`, `b` (stride
    /// ``stride(_:)`` of the half width), linearising two rows at a time into `scratch`
    /// (6 × the width rounded up to 8).
    static func halve(
        _ pixels: UnsafePointer<UInt8>, size: PixelSize, linearizer: SRGBLinearizer,
        r: UnsafeMutablePointer<Float>, g: UnsafeMutablePointer<Float>, b: UnsafeMutablePointer<Float>,
        scratch: UnsafeMutablePointer<Float>
    ) {
        let out = half(size)
        let rowStride = stride(size.width)
        let outStride = stride(out.width)
        let rows = (0..<6).map { scratch + $0 * rowStride }
        for oy in 0..<out.height {
            linearizer.linearize(pixels, width: size.width, row: 2 * oy, r: rows[0], g: rows[1], b: rows[2])
            linearizer.linearize(
                pixels, width: size.width, row: min(2 * oy + 1, size.height - 1), r: rows[3], g: rows[4], b: rows[5])
            for (channel, plane) in [r, g, b].enumerated() {
                let row0 = rows[channel]
                let row1 = rows[channel + 3]
                let o = plane + oy * outStride
                for ox in 0..<out.width {
                    let x0 = 2 * ox
                    let x1 = min(x0 + 1, size.width - 1)
                    o[ox] = (row0[x0] + row0[x1] + row1[x0] + row1[x1]) * 0.25
                }
            }
        }
    }
}
