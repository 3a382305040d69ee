import CMetricKernels

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
///   scale) and rows; no limit is needed beyond the inputs' own. A ``PreparedReference`` holds
///   more (see there) to make each comparison with it cheaper.
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
        private let maps: ScaleMaps
        private let pyramid = ScalePyramid()

        /// A scorer with no working memory yet.
        public init() {
            maps = ScaleMaps(level: SSIMULACRA2.kernelLevel)
        }

        /// A scorer whose row loops run the given kernel set (tests compare the sets).
        init(kernelLevel: Int32) {
            maps = ScaleMaps(level: kernelLevel)
        }

        /// The score of `distorted` against `reference`; see ``SSIMULACRA2``.
        /// - Throws: ``WebImageError/comparisonRefused(reason:)`` when the sizes differ or are
        ///   under ``SSIMULACRA2/minimumDimension``.
        public func score(reference: PixelBuffer, distorted: PixelBuffer) throws -> Double {
            try SSIMULACRA2.checkSameSize(PixelSize(width: reference.width, height: reference.height), distorted)
            let size = try SSIMULACRA2.checkedSize(reference)
            if reference.isFullyOpaque() && distorted.isFullyOpaque() {
                return measure(reference, distorted, size: size, linearizer: .opaque)
            }
            return min(
                measure(reference, distorted, size: size, linearizer: SSIMULACRA2.darkBackground),
                measure(reference, distorted, size: size, linearizer: SSIMULACRA2.lightBackground))
        }

        /// The score of `distorted` against a prepared reference: the same score as
        /// ``score(reference:distorted:)`` gives against the prepared image, in less time (the
        /// reference's half of the work was done once).
        /// - Throws: ``WebImageError/comparisonRefused(reason:)`` when the sizes differ.
        public func score(prepared reference: PreparedReference, distorted: PixelBuffer) throws -> Double {
            try SSIMULACRA2.checkSameSize(reference.size, distorted)
            if let opaque = reference.opaque {
                if distorted.isFullyOpaque() { return measure(opaque, distorted, linearizer: .opaque) }
                // Blending leaves an opaque pixel as it is: the opaque reference is its own blend.
                return min(
                    measure(opaque, distorted, linearizer: SSIMULACRA2.darkBackground),
                    measure(opaque, distorted, linearizer: SSIMULACRA2.lightBackground))
            }
            return min(
                measure(reference.dark, distorted, linearizer: SSIMULACRA2.darkBackground),
                measure(reference.light, distorted, linearizer: SSIMULACRA2.lightBackground))
        }

        private func measure(
            _ reference: PixelBuffer, _ distorted: PixelBuffer, size: PixelSize, linearizer: SRGBLinearizer
        ) -> Double {
            var scales: [ScaleScores] = []
            reference.bytes.withUnsafeBufferPointer { referenceBytes in
                distorted.bytes.withUnsafeBufferPointer { distortedBytes in
                    let images = [referenceBytes.baseAddress!, distortedBytes.baseAddress!]
                    let current = pyramid.current
                    pyramid.walk(images, size: size, linearizer: linearizer) { scaled, load in
                        scales.append(maps.measure(size: scaled) { y in
                            load(y)
                            return (current[0], current[1])
                        })
                    }
                }
            }
            return SSIMULACRA2Pooling.score(scales)
        }

        private func measure(_ reference: [PreparedScale], _ distorted: PixelBuffer, linearizer: SRGBLinearizer) -> Double {
            var scales: [ScaleScores] = []
            distorted.bytes.withUnsafeBufferPointer { distortedBytes in
                let current = pyramid.current
                var index = 0
                pyramid.walk([distortedBytes.baseAddress!], size: reference[0].size, linearizer: linearizer) { _, load in
                    scales.append(maps.measure(prepared: reference[index]) { y in
                        load(y)
                        return current[0]
                    })
                    index += 1
                }
            }
            return SSIMULACRA2Pooling.score(scales)
        }
    }

    /// A reference image made ready to be compared with many candidates: its linear light, XYB
    /// and blurred planes at every scale, computed once, so that each comparison does only the
    /// candidate's half of the work (``Scorer/score(prepared:distorted:)``).
    ///
    /// - Memory: ``byteCount(for:hasAlpha:)``, about 48 bytes a pixel (twice that when the
    ///   reference is not opaque: one set per background), held until it is released.
    public final class PreparedReference: Sendable {
        /// The reference's size.
        public let size: PixelSize
        /// The scales of an opaque reference.
        let opaque: [PreparedScale]?
        /// The scales blended on the dark and on the light background (a reference with alpha).
        let dark: [PreparedScale]
        let light: [PreparedScale]

        /// Prepares `reference` (at least 8×8).
        /// - Throws: ``WebImageError/comparisonRefused(reason:)`` when it is under
        ///   ``SSIMULACRA2/minimumDimension``.
        public convenience init(_ reference: PixelBuffer) throws {
            try self.init(reference, kernelLevel: SSIMULACRA2.kernelLevel)
        }

        init(_ reference: PixelBuffer, kernelLevel: Int32) throws {
            let size = try SSIMULACRA2.checkedSize(reference)
            self.size = size
            let pyramid = ScalePyramid()
            func scales(_ linearizer: SRGBLinearizer) -> [PreparedScale] {
                var scales: [PreparedScale] = []
                reference.bytes.withUnsafeBufferPointer { bytes in
                    let current = pyramid.current
                    pyramid.walk([bytes.baseAddress!], size: size, linearizer: linearizer) { scaled, load in
                        scales.append(ScaleMaps.prepare(size: scaled, level: kernelLevel) { y in
                            load(y)
                            return current[0]
                        })
                    }
                }
                return scales
            }
            if reference.isFullyOpaque() {
                opaque = scales(.opaque)
                dark = []
                light = []
            } else {
                opaque = nil
                dark = scales(SSIMULACRA2.darkBackground)
                light = scales(SSIMULACRA2.lightBackground)
            }
        }

        /// The bytes a prepared reference of `size` holds (before it is made: a caller can check
        /// it against a budget).
        public static func byteCount(for size: PixelSize, hasAlpha: Bool) -> Int {
            var total = 0
            var scaled = size
            for scale in 0..<6 {
                if scale > 0 {
                    guard scaled.width >= minimumDimension, scaled.height >= minimumDimension else { break }
                    scaled = LinearDownsample.half(scaled)
                }
                let layout = PreparedLayout(size: scaled)
                total += layout.xybCount + 2 * layout.planeCount
            }
            return total * MemoryLayout<Float>.size * (hasAlpha ? 2 : 1)
        }
    }

    /// The widest kernel set of this CPU (`wi_ssim2_kernels_level`: 0 baseline, 1 AVX2 and FMA).
    static let kernelLevel = wi_ssim2_kernels_level()

    static let darkBackground = SRGBLinearizer.blending(onto: 0.1)
    static let lightBackground = SRGBLinearizer.blending(onto: 0.9)

    /// The size of `image`, refused under ``minimumDimension``.
    static func checkedSize(_ image: PixelBuffer) throws -> PixelSize {
        let size = PixelSize(width: image.width, height: image.height)
        guard size.width >= minimumDimension, size.height >= minimumDimension else {
            throw WebImageError.comparisonRefused(
                reason: "SSIMULACRA2 measures images of at least \(minimumDimension)x\(minimumDimension) pixels; these are \(size)")
        }
        return size
    }

    static func checkSameSize(_ size: PixelSize, _ distorted: PixelBuffer) throws {
        guard distorted.width == size.width, distorted.height == size.height else {
            throw WebImageError.comparisonRefused(
                reason: "the images differ in size: \(size) and \(distorted.width)x\(distorted.height)")
        }
    }
}
