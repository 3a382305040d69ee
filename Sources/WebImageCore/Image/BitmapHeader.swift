/// The headers of the Windows bitmap formats: BMP (`BITMAPINFOHEADER` family and the old
/// `BITMAPCOREHEADER`) and ICO/CUR (the directory's largest entry).
enum BitmapHeader {
    /// BMP: width and height (a negative height means rows are stored top-down; the size is its
    /// magnitude). `nil` when the header is truncated or declares a zero or impossible size.
    static func bmpSize(_ bytes: HeaderBytes) -> PixelSize? {
        guard bytes.matches("BM", at: 0), let infoSize = bytes.u32le(14) else { return nil }
        if infoSize == 12 {  // BITMAPCOREHEADER: unsigned 16-bit sizes
            guard let width = bytes.u16le(18), let height = bytes.u16le(20), width > 0, height > 0 else { return nil }
            return PixelSize(width: width, height: height)
        }
        guard infoSize >= 16, let rawWidth = bytes.u32le(18), let rawHeight = bytes.u32le(22) else { return nil }
        let width = Int(Int32(bitPattern: UInt32(rawWidth)))
        let height = Int(Int32(bitPattern: UInt32(rawHeight)))
        // Int32.min has no positive counterpart in a BMP: refuse it like a zero size.
        guard width > 0, height != 0, height != Int(Int32.min) else { return nil }
        return PixelSize(width: width, height: abs(height))
    }

    /// ICO/CUR: the largest entry of the directory. An entry's byte of 0 means 256; an entry
    /// holding a PNG reports the PNG's own `IHDR` size (icons larger than 256 are stored so).
    static func icoSize(_ bytes: HeaderBytes) -> PixelSize? {
        guard bytes.u16le(0) == 0, let type = bytes.u16le(2), type == 1 || type == 2,
            let count = bytes.u16le(4), count > 0
        else { return nil }
        var best: PixelSize?
        for index in 0..<count {
            let entry = 6 + index * 16
            guard let w = bytes.u8(entry), let h = bytes.u8(entry + 1) else { break }
            var size = PixelSize(width: w == 0 ? 256 : w, height: h == 0 ? 256 : h)
            if let length = bytes.u32le(entry + 8), let offset = bytes.u32le(entry + 12),
                let image = bytes.slice(offset, min(length, 33)), let png = PNGHeader.scan(image),
                png.width > 0, png.height > 0
            {
                size = PixelSize(width: png.width, height: png.height)
            }
            if best.map({ size.pixelCount > $0.pixelCount }) ?? true { best = size }
        }
        return best
    }
}
