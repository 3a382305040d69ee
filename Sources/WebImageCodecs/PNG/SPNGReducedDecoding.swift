import CSPNG
import WebImageCore

/// Shrink on load for PNG: libspng decodes one row at a time (progressive decoding) and each
/// `d`×`d` block of stored pixels is averaged into one reduced pixel as the rows arrive, so only
/// one stored row, a row of block sums and the reduced canvas are ever allocated.
extension SPNGDecoding {
    /// Decodes a non-interlaced PNG at ⌈w/d⌉×⌈h/d⌉ (`d` 1 is ``decode(_:limits:)``): reduced pixel (i, j) is the average of the
    /// stored pixels `i·d ..< min((i+1)·d, w)` × `j·d ..< min((j+1)·d, h)`, weighted by alpha
    /// (colours of transparent pixels do not bleed), as ``/WebImageCore/PixelBuffer/downscaled(to:)``
    /// averages. Same context setup, format, flags and CRC policy as ``decode(_:limits:)``.
    ///
    /// - Throws: `imageTooLarge` from IHDR before allocating (pixel limit on the stored size,
    ///   budget on the reduced one), `badImageData` for corrupt or truncated data,
    ///   `unsupportedFormat` for an interlaced image (its rows arrive pass by pass).
    ///
    /// With `hdr` (PQ/HLG code points), the rows of a 16-bit PNG are decoded at 16 bits and each is
    /// tone-mapped to SDR sRGB (H-4) before it is averaged.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, limits: DecodeLimits, scaleDenominator d: Int, hdr: CICP? = nil
    ) throws -> SPNGImage {
        precondition(d >= 1, "scale denominator \(d)")
        // 1/1 is the stored image, transparent pixels' colours included.
        guard d > 1 else { return try decode(bytes, limits: limits, hdr: hdr) }
        return try withContext(bytes, limits: limits) { ctx in
            let header = try header(ctx, limits: limits, scaleDenominator: d)
            guard !header.interlaced else {
                throw WebImageError.unsupportedFormat(.png, reason: "an interlaced PNG has no reduced decode")
            }
            let toneMap = header.bitDepth == 16 ? hdr.flatMap { HDRTransformCache.shared.transform(for: $0, bits: 16) } : nil
            let fmt = Int32(toneMap == nil ? SPNG_FMT_RGBA8.rawValue : SPNG_FMT_RGBA16.rawValue)
            let width = header.width, height = header.height
            let rowBytes = width * PixelBuffer.bytesPerPixel
            let decodedRowBytes = toneMap == nil ? rowBytes : rowBytes * 2
            var size = 0
            var rc = spng_decoded_image_size(ctx, fmt, &size)
            guard rc == 0 else { throw error(rc, "size") }
            guard size == decodedRowBytes * height else {
                throw WebImageError.badImageData(reason: "PNG: unexpected decoded size \(size)")
            }
            let flags = Int32(SPNG_DECODE_TRNS.rawValue | SPNG_DECODE_PROGRESSIVE.rawValue)
            rc = spng_decode_image(ctx, nil, 0, fmt, flags)
            guard rc == 0 else { throw error(rc, "decode") }

            let reduced = PNGCoder.reducedSize(of: header.size, scaleDenominator: d)
            let row = UnsafeMutablePointer<UInt8>.allocate(capacity: rowBytes)
            defer { row.deallocate() }
            let wideRow = UnsafeMutablePointer<UInt16>.allocate(capacity: toneMap == nil ? 0 : width * 4)
            defer { wideRow.deallocate() }
            // Per reduced column of the current block row: Σ r·α, Σ g·α, Σ b·α, Σ α. At most
            // 64 pixels × 255 × 255 per sum: 32 bits are enough.
            let sums = UnsafeMutablePointer<UInt32>.allocate(capacity: reduced.width * 4)
            defer { sums.deallocate() }
            var decodedRows = 0
            let pixels = try PixelBuffer.make(width: reduced.width, height: reduced.height) { out in
                guard let dst = out.baseAddress else { return }
                for ry in 0..<reduced.height {
                    sums.initialize(repeating: 0, count: reduced.width * 4)
                    let rows = min(d, height - ry * d)
                    for _ in 0..<rows {
                        // libspng answers SPNG_EOI with the last row; earlier it is an error.
                        if let toneMap {
                            rc = spng_decode_row(ctx, wideRow, decodedRowBytes)
                            if rc == 0 || rc == Int32(SPNG_EOI.rawValue) { toneMap.apply(wideRow, row, count: width) }
                        } else {
                            rc = spng_decode_row(ctx, row, rowBytes)
                        }
                        decodedRows += 1
                        let last = decodedRows == height
                        guard rc == 0 || (last && rc == Int32(SPNG_EOI.rawValue)) else {
                            throw rc == Int32(SPNG_EOI.rawValue)
                                ? WebImageError.badImageData(reason: "PNG decode: image data ended at row \(decodedRows)")
                                : error(rc, "decode")
                        }
                        accumulate(row, width: width, blockWidth: d, into: sums)
                    }
                    average(sums, width: width, blockWidth: d, rows: rows, into: dst + ry * reduced.width * 4, count: reduced.width)
                }
            }
            return try finish(ctx, pixels: pixels, header: header)
        }
    }

    /// Adds one stored RGBA row to the block sums, `blockWidth` pixels per reduced column.
    private static func accumulate(_ row: UnsafePointer<UInt8>, width: Int, blockWidth d: Int, into sums: UnsafeMutablePointer<UInt32>) {
        var x = 0
        var s = sums
        while x < width {
            let end = min(x + d, width)
            var r: UInt32 = 0, g: UInt32 = 0, b: UInt32 = 0, a: UInt32 = 0
            var p = row + x * 4
            for _ in x..<end {
                let alpha = UInt32(p[3])
                r &+= UInt32(p[0]) &* alpha
                g &+= UInt32(p[1]) &* alpha
                b &+= UInt32(p[2]) &* alpha
                a &+= alpha
                p += 4
            }
            s[0] &+= r
            s[1] &+= g
            s[2] &+= b
            s[3] &+= a
            s += 4
            x = end
        }
    }

    /// Writes one reduced row from the block sums: colour Σ c·α / Σ α (straight alpha again),
    /// alpha Σ α over the pixels the block really has (fewer in the last column and row).
    private static func average(
        _ sums: UnsafeMutablePointer<UInt32>, width: Int, blockWidth d: Int, rows: Int,
        into out: UnsafeMutablePointer<UInt8>, count: Int
    ) {
        for rx in 0..<count {
            let s = sums + rx * 4, q = out + rx * 4
            let a = s[3]
            guard a > 0 else {
                q[0] = 0; q[1] = 0; q[2] = 0; q[3] = 0
                continue
            }
            let n = UInt32(min(d, width - rx * d) * rows)
            q[0] = UInt8(truncatingIfNeeded: (s[0] + a / 2) / a)
            q[1] = UInt8(truncatingIfNeeded: (s[1] + a / 2) / a)
            q[2] = UInt8(truncatingIfNeeded: (s[2] + a / 2) / a)
            q[3] = UInt8(truncatingIfNeeded: (a + n / 2) / n)
        }
    }
}
