/// SSIMULACRA2's six scales of one or two RGBA8 images in linear light: full size row by row
/// from the bytes, then planes halved in linear light (the half scale made from the bytes two
/// rows at a time, each further scale in place).
///
/// Not thread-safe: one owner at a time (the scorer or preparation that holds it).
final class ScalePyramid {
    /// The rows of each image at the row last loaded (see ``walk(_:size:linearizer:body:)``).
    let current = UnsafeMutablePointer<LinearRGBRows>.allocate(capacity: 2)
    private let rows = FloatScratch()
    private let planes = FloatScratch()

    deinit { current.deallocate() }

    /// Calls `body(size, load)` once per scale, from full size down while both sides are at
    /// least ``SSIMULACRA2/minimumDimension`` (six scales at most); `load(y)` points
    /// `current[0..<images.count]` at row `y` of each image at that scale. `images`: one or two.
    func walk(
        _ images: [UnsafePointer<UInt8>], size: PixelSize, linearizer: SRGBLinearizer,
        body: (PixelSize, (Int) -> Void) -> Void
    ) {
        let n = images.count
        precondition(n == 1 || n == 2, "one or two images")
        let fullStride = LinearDownsample.stride(size.width)
        rows.reserve(6 * fullStride)
        let half = LinearDownsample.half(size)
        let planeCount = LinearDownsample.stride(half.width) * half.height
        planes.reserve(3 * n * planeCount)
        let row = rows.pointer
        let plane = planes.pointer
        let current = self.current
        body(size) { y in
            for image in 0..<n {
                let r = row + 3 * image * fullStride
                linearizer.linearize(images[image], width: size.width, row: y, r: r, g: r + fullStride, b: r + 2 * fullStride)
                current[image] = LinearRGBRows(r: r, g: r + fullStride, b: r + 2 * fullStride)
            }
        }
        var scaled = size
        for scale in 1..<6 {
            guard scaled.width >= SSIMULACRA2.minimumDimension, scaled.height >= SSIMULACRA2.minimumDimension else { break }
            if scale == 1 {
                for image in 0..<n {
                    let p = plane + 3 * image * planeCount
                    LinearDownsample.halve(
                        images[image], size: size, linearizer: linearizer, r: p, g: p + planeCount, b: p + 2 * planeCount,
                        scratch: row)
                }
            } else {
                for index in 0..<(3 * n) { LinearDownsample.halveInPlace(plane + index * planeCount, size: scaled) }
            }
            scaled = LinearDownsample.half(scaled)
            let stride = LinearDownsample.stride(scaled.width)
            body(scaled) { y in
                for image in 0..<n {
                    let p = UnsafePointer(plane + 3 * image * planeCount + y * stride)
                    current[image] = LinearRGBRows(r: p, g: p + planeCount, b: p + 2 * planeCount)
                }
            }
        }
    }
}
