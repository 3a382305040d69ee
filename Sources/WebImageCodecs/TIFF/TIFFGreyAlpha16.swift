import CTIFF
import WebImageCore

/// 16-bit grey with an alpha sample. libtiff's RGBA interface reads only the grey sample of
/// 16-bit grey pages (its alpha support for grey is 8-bit only), which would draw them opaque;
/// these pages are read here instead, strip by strip or tile by tile (one block buffer).
extension TIFFMemoryFile {
    /// The layout of the current directory when it is contiguous 16-bit unsigned grey whose
    /// first extra sample is associated or unassociated alpha; `nil` otherwise.
    func greyAlpha16Layout() -> (samplesPerPixel: Int, whiteIsZero: Bool, associated: Bool)? {
        guard uint16(TIFFTAG_BITSPERSAMPLE) == 16, let photometric = uint16(TIFFTAG_PHOTOMETRIC),
            Int32(photometric) == PHOTOMETRIC_MINISBLACK || Int32(photometric) == PHOTOMETRIC_MINISWHITE,
            let samples = uint16(TIFFTAG_SAMPLESPERPIXEL), samples >= 2,
            Int32(uint16(TIFFTAG_PLANARCONFIG) ?? UInt16(PLANARCONFIG_CONTIG)) == PLANARCONFIG_CONTIG,
            Int32(uint16(TIFFTAG_SAMPLEFORMAT) ?? UInt16(SAMPLEFORMAT_UINT)) == SAMPLEFORMAT_UINT
        else { return nil }
        var extraCount: UInt16 = 0
        var extraKinds: UnsafeMutablePointer<UInt16>?
        let found = withUnsafeMutablePointer(to: &extraCount) { count in
            withUnsafeMutablePointer(to: &extraKinds) { kinds in
                withVaList([count, kinds]) { TIFFVGetFieldDefaulted(handle, UInt32(TIFFTAG_EXTRASAMPLES), $0) }
            }
        }
        guard found == 1, extraCount >= 1, Int(samples) - Int(extraCount) == 1, let kinds = extraKinds else { return nil }
        let kind = Int32(kinds[0])
        guard kind == EXTRASAMPLE_ASSOCALPHA || kind == EXTRASAMPLE_UNASSALPHA else { return nil }
        return (Int(samples), Int32(photometric) == PHOTOMETRIC_MINISWHITE, kind == EXTRASAMPLE_ASSOCALPHA)
    }

    /// Decodes the current directory (a ``greyAlpha16Layout()`` page) to RGBA with straight
    /// alpha, rows as stored. `size` must have been checked against the limits.
    /// - Throws: `badImageData` for corrupt or truncated data or an inconsistent layout.
    func decodeGreyAlpha16(
        size: PixelSize, layout: (samplesPerPixel: Int, whiteIsZero: Bool, associated: Bool)
    ) throws -> PixelBuffer {
        let spp = layout.samplesPerPixel
        return try PixelBuffer.make(width: size.width, height: size.height) { out in
            try forEachBlock(size: size, bytesPerPixel: spp * 2) { block, placement in
                let samples = block.bindMemory(to: UInt16.self, capacity: placement.rows * placement.rowBytes / 2)
                let blockWidth = placement.rowBytes / (spp * 2)
                for row in 0..<placement.rows {
                    var source = row * blockWidth * spp
                    var target = ((placement.top + row) * size.width + placement.left) * 4
                    for _ in 0..<placement.columns {
                        var grey = Int(samples[source])
                        let alpha = Int(samples[source + 1])
                        if layout.whiteIsZero { grey = 65535 - grey }
                        if layout.associated { grey = alpha == 0 ? 0 : min(65535, (grey * 65535 + alpha / 2) / alpha) }
                        let level = UInt8((grey * 255 + 32767) / 65535)
                        out[target] = level
                        out[target + 1] = level
                        out[target + 2] = level
                        out[target + 3] = UInt8((alpha * 255 + 32767) / 65535)
                        source += spp
                        target += 4
                    }
                }
            }
        }
    }
}
