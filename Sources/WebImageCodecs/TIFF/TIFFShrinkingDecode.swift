import CTIFF
import WebImageCore

/// Thumbnails of large TIFF pages without the full-size raster: libtiff's RGBA reader is run
/// over bands of rows (`row_offset`), each band holding whole strips or tile rows (each is
/// decoded once, one strip or tile buffer at a time) and whole groups of `factor` rows, and
/// every `factor`×`factor` block is averaged (premultiplied) into the reduced image. The caller
/// resamples that to the exact size. Peak memory: one band plus the reduced image, instead of
/// the whole page.
extension TIFFMemoryFile {
    /// The most bytes of one band of full-width RGBA rows (64 MiB); a layout needing more (one
    /// strip for the whole page, very tall tiles) decodes the page whole instead.
    static let maxShrinkBandBytes = 64 * 1024 * 1024

    /// The current directory (of `size`, checked against the limits) reduced by `factor` in
    /// each direction (rounded up), rows as stored; `nil` when banding would not save memory
    /// (the caller then decodes the page whole).
    /// - Throws: `unsupportedFormat` or `badImageData`, as ``decodeCurrent(size:)``.
    func decodeCurrentShrinking(size: PixelSize, by factor: Int) throws -> PixelBuffer? {
        guard factor >= 2, greyAlpha16Layout() == nil else { return nil }
        let blockRows =
            TIFFIsTiled(handle) != 0
            ? Int(uint32(TIFFTAG_TILELENGTH) ?? 0)
            : min(size.height, Int(uint32(TIFFTAG_ROWSPERSTRIP) ?? UInt32(size.height)))
        guard blockRows > 0 else { return nil }
        let band = blockRows / Self.greatestCommonDivisor(blockRows, factor) * factor
        let bandBytes = band.multipliedReportingOverflow(by: size.width * 4)
        guard band < size.height, !bandBytes.overflow, bandBytes.partialValue <= Self.maxShrinkBandBytes else { return nil }
        let width = size.width
        let outWidth = (width + factor - 1) / factor
        let outHeight = (size.height + factor - 1) / factor
        return try withRGBAImage(size: size) { image, premultiplied in
            let raster = UnsafeMutablePointer<UInt32>.allocate(capacity: band * width)
            defer { raster.deallocate() }
            var sums = [Int](repeating: 0, count: outWidth * 4)
            return try PixelBuffer.make(width: outWidth, height: outHeight) { out in
                var top = 0
                while top < size.height {
                    let rows = min(band, size.height - top)
                    image.row_offset = Int32(top)
                    image.col_offset = 0
                    guard TIFFRGBAImageGet(&image, raster, image.width, UInt32(rows)) == 1 else {
                        throw failure("corrupt or truncated image data")
                    }
                    var groupTop = 0
                    while groupTop < rows {
                        let groupRows = min(factor, rows - groupTop)
                        for i in sums.indices { sums[i] = 0 }
                        for row in groupTop..<groupTop + groupRows {
                            let line = raster + row * width
                            var x = 0
                            for column in 0..<outWidth {
                                let end = min(x + factor, width)
                                var (red, green, blue, alpha) = (0, 0, 0, 0)
                                while x < end {
                                    let word = line[x]
                                    let a = Int(word >> 24)
                                    var r = Int(word & 0xFF)
                                    var g = Int((word >> 8) & 0xFF)
                                    var b = Int((word >> 16) & 0xFF)
                                    if !premultiplied && a < 255 {
                                        r = (r * a + 127) / 255
                                        g = (g * a + 127) / 255
                                        b = (b * a + 127) / 255
                                    }
                                    red += r
                                    green += g
                                    blue += b
                                    alpha += a
                                    x += 1
                                }
                                sums[column * 4] += red
                                sums[column * 4 + 1] += green
                                sums[column * 4 + 2] += blue
                                sums[column * 4 + 3] += alpha
                            }
                        }
                        let outRow = (top + groupTop) / factor
                        for column in 0..<outWidth {
                            let count = min(factor, width - column * factor) * groupRows
                            let target = (outRow * outWidth + column) * 4
                            for c in 0..<4 { out[target + c] = UInt8((sums[column * 4 + c] + count / 2) / count) }
                        }
                        groupTop += groupRows
                    }
                    top += rows
                }
                TIFFMemoryFile.unpremultiply(out)
            }
        }
    }

    private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int {
        var (a, b) = (a, b)
        while b != 0 { (a, b) = (b, a % b) }
        return a
    }
}
