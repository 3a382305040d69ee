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
        try PixelBuffer.make(width: size.width, height: size.height) { out in
            try forEachBlock(size: size, bytesPerPixel: 4) { samples, block in
                for row in 0..<block.rows {
                    let target = ((block.top + row) * size.width + block.left) * 4
                    UnsafeMutableRawPointer(out.baseAddress! + target).copyMemory(from: samples + row * block.rowBytes, byteCount: block.columns * 4)
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
