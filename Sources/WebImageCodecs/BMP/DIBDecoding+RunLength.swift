import WebImageCore

extension DIBDecoding {
    /// Decodes RLE8 (`bits` 8) or RLE4 (`bits` 4) pixel data starting at `offset` into `out`
    /// (bottom-up, as run-length bitmaps always are), returning whether any pixel was left
    /// unpainted — by a delta or an early end of line or bitmap — which is transparent, as in
    /// browsers. Runs and literals past the right edge are clipped; rows past the top end the
    /// bitmap.
    /// - Throws: `badImageData` when the data ends before the end-of-bitmap code.
    static func decodeRunLength(
        _ b: UnsafeRawBufferPointer, from offset: Int, bits: Int, palette: [UInt8], into out: UnsafeMutableBufferPointer<UInt8>,
        width: Int, height: Int
    ) throws -> Bool {
        for index in 0..<out.count { out[index] = 0 }
        var painted = 0
        var x = 0
        var y = 0
        var position = offset
        func paint(_ index: Int) {
            guard x < width, y < height else { x += 1; return }
            let target = ((height - 1 - y) * width + x) * 4
            let color = index * 4
            if color + 3 < palette.count {
                out[target] = palette[color]
                out[target + 1] = palette[color + 1]
                out[target + 2] = palette[color + 2]
            }
            out[target + 3] = 255
            painted += 1
            x += 1
        }
        func byte() throws -> Int {
            guard position < b.count else { throw WebImageError.badImageData(reason: "BMP run-length data ends early") }
            defer { position += 1 }
            return Int(b[position])
        }
        decoding: while y < height {
            let count = try byte()
            let value = try byte()
            if count > 0 {
                for run in 0..<count {
                    paint(bits == 8 ? value : (run % 2 == 0 ? value >> 4 : value & 0x0F))
                }
                continue
            }
            switch value {
            case 0:  // end of line
                x = 0
                y += 1
            case 1:  // end of bitmap
                break decoding
            case 2:  // delta
                x += try byte()
                y += try byte()
            default:  // a literal run of `value` pixels, padded to a 16-bit boundary
                let literalBytes = bits == 8 ? value : (value + 1) / 2
                guard literalBytes <= b.count - position else {
                    throw WebImageError.badImageData(reason: "BMP run-length literal ends early")
                }
                for index in 0..<value {
                    let source = b[position + (bits == 8 ? index : index / 2)]
                    paint(bits == 8 ? Int(source) : Int(index % 2 == 0 ? source >> 4 : source & 0x0F))
                }
                position += literalBytes + (literalBytes % 2)
            }
        }
        return painted < width * height
    }
}
