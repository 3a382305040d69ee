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
        let tiled = TIFFIsTiled(handle) != 0
        let blockWidth: Int
        let blockHeight: Int
        let blockBytes: Int
        if tiled {
            blockWidth = Int(uint32(TIFFTAG_TILEWIDTH) ?? 0)
            blockHeight = Int(uint32(TIFFTAG_TILELENGTH) ?? 0)
            blockBytes = Int(TIFFTileSize(handle))
        } else {
            blockWidth = size.width
            blockHeight = min(size.height, Int(uint32(TIFFTAG_ROWSPERSTRIP) ?? UInt32(size.height)))
            blockBytes = Int(TIFFStripSize(handle))
        }
        let spp = layout.samplesPerPixel
        guard blockWidth > 0, blockHeight > 0, blockBytes > 0, blockBytes <= TIFFMemoryFile.maxSingleAllocation,
            blockWidth.multipliedReportingOverflow(by: blockHeight * spp * 2).partialValue <= blockBytes
        else { throw failure("inconsistent strip or tile size") }
        let block = UnsafeMutableRawPointer.allocate(byteCount: blockBytes, alignment: 16)
        defer { block.deallocate() }
        let samples = block.bindMemory(to: UInt16.self, capacity: blockBytes / 2)
        return try PixelBuffer.make(width: size.width, height: size.height) { out in
            for top in stride(from: 0, to: size.height, by: blockHeight) {
                for left in stride(from: 0, to: size.width, by: blockWidth) {
                    let rows = min(blockHeight, size.height - top)
                    let columns = min(blockWidth, size.width - left)
                    let read =
                        tiled
                        ? TIFFReadEncodedTile(handle, TIFFComputeTile(handle, UInt32(left), UInt32(top), 0, 0), block, tmsize_t(blockBytes))
                        : TIFFReadEncodedStrip(handle, TIFFComputeStrip(handle, UInt32(top), 0), block, tmsize_t(blockBytes))
                    guard read >= 0, Int(read) >= ((rows - 1) * blockWidth + columns) * spp * 2 else {
                        throw failure("corrupt or truncated image data")
                    }
                    for row in 0..<rows {
                        var source = row * blockWidth * spp
                        var target = ((top + row) * size.width + left) * 4
                        for _ in 0..<columns {
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
}
