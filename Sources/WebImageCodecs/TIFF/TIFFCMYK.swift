import CTIFF
import WebImageCore

/// 8-bit CMYK read as samples and converted through LittleCMS with a CMYK profile (the file's
/// own, or ``DefaultCMYKProfile``), as CMYK JPEGs are. libtiff's RGBA interface would apply the
/// naive formula instead (`R = (255 − K)(255 − C) / 255`), which is what other CMYK layouts
/// (extra samples, 16-bit, planar) still get. Strips or tiles are read one block at a time.
extension TIFFMemoryFile {
    /// Whether the current directory is contiguous 8-bit unsigned CMYK (`Photometric` 5,
    /// `InkSet` 1) with exactly four samples and no extra sample.
    func isPlainCMYK8() -> Bool {
        guard let photometric = uint16(TIFFTAG_PHOTOMETRIC), Int32(photometric) == PHOTOMETRIC_SEPARATED,
            Int32(uint16(TIFFTAG_INKSET) ?? UInt16(INKSET_CMYK)) == INKSET_CMYK,
            uint16(TIFFTAG_SAMPLESPERPIXEL) == 4, uint16(TIFFTAG_BITSPERSAMPLE) == 8,
            Int32(uint16(TIFFTAG_PLANARCONFIG) ?? UInt16(PLANARCONFIG_CONTIG)) == PLANARCONFIG_CONTIG,
            Int32(uint16(TIFFTAG_SAMPLEFORMAT) ?? UInt16(SAMPLEFORMAT_UINT)) == SAMPLEFORMAT_UINT
        else { return false }
        var extraCount: UInt16 = 0
        var extraKinds: UnsafeMutablePointer<UInt16>?
        let found = withUnsafeMutablePointer(to: &extraCount) { count in
            withUnsafeMutablePointer(to: &extraKinds) { kinds in
                withVaList([count, kinds]) { TIFFVGetFieldDefaulted(handle, UInt32(TIFFTAG_EXTRASAMPLES), $0) }
            }
        }
        return found != 1 || extraCount == 0
    }

    /// Decodes the current directory (an ``isPlainCMYK8()`` page) to opaque RGBA, rows as
    /// stored, converting its CMYK samples with `profile` (the naive formula when the profile
    /// gives no CMYK transform). `size` must have been checked against the limits.
    /// - Throws: `badImageData` for corrupt or truncated data or an inconsistent layout.
    func decodeCMYK8(size: PixelSize, profile: ColorProfile) throws -> PixelBuffer {
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
        // Block sizes come from the directory: checked before the block buffer exists.
        let needed = blockWidth.multipliedReportingOverflow(by: blockHeight)
        guard blockWidth > 0, blockHeight > 0, blockBytes > 0, blockBytes <= TIFFMemoryFile.maxSingleAllocation,
            !needed.overflow, needed.partialValue <= blockBytes / 4
        else { throw failure("inconsistent strip or tile size") }
        let block = UnsafeMutableRawPointer.allocate(byteCount: blockBytes, alignment: 16)
        defer { block.deallocate() }
        let samples = block.bindMemory(to: UInt8.self, capacity: blockBytes)
        return try PixelBuffer.make(width: size.width, height: size.height) { out in
            for top in stride(from: 0, to: size.height, by: blockHeight) {
                for left in stride(from: 0, to: size.width, by: blockWidth) {
                    let rows = min(blockHeight, size.height - top)
                    let columns = min(blockWidth, size.width - left)
                    let read =
                        tiled
                        ? TIFFReadEncodedTile(handle, TIFFComputeTile(handle, UInt32(left), UInt32(top), 0, 0), block, tmsize_t(blockBytes))
                        : TIFFReadEncodedStrip(handle, TIFFComputeStrip(handle, UInt32(top), 0), block, tmsize_t(blockBytes))
                    guard read >= 0, Int(read) >= ((rows - 1) * blockWidth + columns) * 4 else {
                        throw failure("corrupt or truncated image data")
                    }
                    for row in 0..<rows {
                        let source = row * blockWidth * 4
                        let target = ((top + row) * size.width + left) * 4
                        UnsafeMutableRawPointer(out.baseAddress! + target).copyMemory(from: samples + source, byteCount: columns * 4)
                    }
                }
            }
            if !ColorConversion.convertCMYK(out, profile: profile, inverted: false) {
                Self.naiveCMYK(out)
            }
        }
    }

    /// libtiff's CMYK → RGB formula, in place, alpha opaque: `R = (255 − K)(255 − C) / 255`.
    static func naiveCMYK(_ pixels: UnsafeMutableBufferPointer<UInt8>) {
        var i = 0
        while i + 3 < pixels.count {
            let k = 255 - Int(pixels[i + 3])
            pixels[i] = UInt8(k * (255 - Int(pixels[i])) / 255)
            pixels[i + 1] = UInt8(k * (255 - Int(pixels[i + 1])) / 255)
            pixels[i + 2] = UInt8(k * (255 - Int(pixels[i + 2])) / 255)
            pixels[i + 3] = 255
            i += 4
        }
    }
}
