/// SSIMULACRA2, the perceptual metric libjxl and sharp tune their encoders with (SPEC V-15):
/// how close a distorted image looks to its reference, from 100 (identical) down through 90
/// (visually lossless), 70 (high quality), 50 (medium), 30 (low) to negative values for strong
/// distortion.
///
/// The implementation is this library's own, following the published algorithm (version 2.1,
/// as libjxl's `tools/ssimulacra2.cc` and PyPI's `ssimulacra2`): sRGB to linear light, to XYB
/// rescaled to about 0…1; at six scales (halved each time in linear light) the SSIM map and two
/// edge-difference maps per channel, with libjxl's Gaussian blur (sigma 1.5, zero outside the
/// image); 1-norm and 4-norm pooling; 108 weights; the final curve. See the DocC article
/// "Perceptual quality" for the details and how it was checked against the reference.
///
/// - Alpha: when either image has a pixel that is not opaque, both are blended on a dark
///   (0.1) and on a light (0.9) grey background, in the encoded values, and the lower of the two
///   scores is returned, as libjxl's tool does.
/// - Memory: besides the two inputs, about 1.5 floats a pixel (the linear planes of the half
///   scale) and rows; no limit is needed beyond the inputs' own.
public enum SSIMULACRA2 {
    /// The smallest width and height compared (libjxl's tool stops at 8 pixels).
    public static let minimumDimension = 8

    /// The score of `distorted` against `reference` (same size, at least 8×8).
    ///
    /// Creates its working memory for this call; a ``Scorer`` keeps it across calls.
    /// - Throws: ``WebImageError/comparisonRefused(reason:)`` when the sizes differ or are
    ///   under ``minimumDimension``.
    public static func score(reference: PixelBuffer, distorted: PixelBuffer) throws -> Double {
        try Scorer().score(reference: reference, distorted: distorted)
    }

    /// Scores image pairs with working memory kept from one call to the next (what a quality
    /// search that compares many candidates wants).
    ///
    /// Not thread-safe: one caller at a time; make one scorer per task.
    public final class Scorer {
        private let maps = ScaleMaps()
        private let rows = FloatScratch()
        private let planes = FloatScratch()

        /// A scorer with no working memory yet.
        public init() {}

        /// The score of `distorted` against `reference`; see ``SSIMULACRA2``.
        /// - Throws: ``WebImageError/comparisonRefused(reason:)`` when the sizes differ or are
        ///   under ``SSIMULACRA2/minimumDimension``.
        public func score(reference: PixelBuffer, distorted: PixelBuffer) throws -> Double {
            let size = PixelSize(width: reference.width, height: reference.height)
            guard distorted.width == size.width, distorted.height == size.height else {
                throw WebImageError.comparisonRefused(
                    reason: "the images differ in size: \(size) and \(distorted.width)x\(distorted.height)")
            }
            guard size.width >= minimumDimension, size.height >= minimumDimension else {
                throw WebImageError.comparisonRefused(
                    reason: "SSIMULACRA2 measures images of at least \(minimumDimension)x\(minimumDimension) pixels; these are \(size)")
            }
            if reference.isFullyOpaque() && distorted.isFullyOpaque() {
                return measure(reference, distorted, size: size, linearizer: .opaque)
            }
            return min(
                measure(reference, distorted, size: size, linearizer: Self.darkBackground),
                measure(reference, distorted, size: size, linearizer: Self.lightBackground))
        }

        private static let darkBackground = SRGBLinearizer.blending(onto: 0.1)
        private static let lightBackground = SRGBLinearizer.blending(onto: 0.9)

        private func measure(
            _ reference: PixelBuffer, _ distorted: PixelBuffer, size: PixelSize, linearizer: SRGBLinearizer
        ) -> Double {
            let fullStride = LinearDownsample.stride(size.width)
            rows.reserve(6 * fullStride)
            let half = LinearDownsample.half(size)
            let planeCount = LinearDownsample.stride(half.width) * half.height
            planes.reserve(6 * planeCount)
            let row = rows.pointer
            let plane = planes.pointer
            var scales: [ScaleScores] = []
            reference.bytes.withUnsafeBufferPointer { referenceBytes in
                distorted.bytes.withUnsafeBufferPointer { distortedBytes in
                    let ref = referenceBytes.baseAddress!
                    let dist = distortedBytes.baseAddress!
                    let referenceRows = LinearRGBRows(r: row, g: row + fullStride, b: row + 2 * fullStride)
                    let distortedRows = LinearRGBRows(r: row + 3 * fullStride, g: row + 4 * fullStride, b: row + 5 * fullStride)
                    scales.append(maps.measure(size: size) { y in
                        linearizer.linearize(ref, width: size.width, row: y, r: row, g: row + fullStride, b: row + 2 * fullStride)
                        linearizer.linearize(
                            dist, width: size.width, row: y, r: row + 3 * fullStride, g: row + 4 * fullStride,
                            b: row + 5 * fullStride)
                        return (referenceRows, distortedRows)
                    })
                    var current = size
                    for scale in 1..<6 {
                        guard current.width >= minimumDimension, current.height >= minimumDimension else { break }
                        if scale == 1 {
                            LinearDownsample.halve(
                                ref, size: size, linearizer: linearizer, r: plane, g: plane + planeCount,
                                b: plane + 2 * planeCount, scratch: row)
                            LinearDownsample.halve(
                                dist, size: size, linearizer: linearizer, r: plane + 3 * planeCount,
                                g: plane + 4 * planeCount, b: plane + 5 * planeCount, scratch: row)
                        } else {
                            for index in 0..<6 {
                                LinearDownsample.halveInPlace(plane + index * planeCount, size: current)
                            }
                        }
                        current = LinearDownsample.half(current)
                        let stride = LinearDownsample.stride(current.width)
                        scales.append(maps.measure(size: current) { y in
                            let at = { (index: Int) in UnsafePointer(plane + index * planeCount + y * stride) }
                            return (LinearRGBRows(r: at(0), g: at(1), b: at(2)), LinearRGBRows(r: at(3), g: at(4), b: at(5)))
                        })
                    }
                }
            }
            return SSIMULACRA2Pooling.score(scales)
        }
    }
}
