import Foundation
import WebImageCore

/// Decodes a device-independent bitmap — the body of a BMP file and of a BMP entry in an ICO —
/// into RGBA8, in pure Swift.
///
/// Headers: OS/2 core (12 bytes), `BITMAPINFOHEADER` (40) and its V2–V5 extensions. Pixels:
/// 1, 4 and 8 bits with a palette (also RLE4/RLE8-compressed), 16 bits (5-5-5 or bit fields),
/// 24 bits, 32 bits (with bit fields or an alpha byte); bottom-up or top-down rows.
/// JPEG/PNG-compressed bitmaps are `unsupportedFormat`. Every offset and size is checked against the data, and the limits
/// before the pixels are allocated; a hostile bitmap can only end in a typed error.
enum DIBDecoding {
    /// Where the parts of a bitmap are.
    struct Layout {
        /// Offset of the DIB header.
        var headerOffset: Int
        /// Offset of the pixel rows, or `nil` for right after the header, masks and palette (ICO).
        var pixelOffset: Int?
        /// An ICO entry: the height covers the colour rows and the 1-bit AND mask below them.
        var isIcon: Bool
    }

    private struct Header {
        var width = 0
        var height = 0
        var topDown = false
        var bitCount = 0
        var compression = 0
        var colorsUsed = 0
        var masks: (red: UInt32, green: UInt32, blue: UInt32, alpha: UInt32) = (0, 0, 0, 0)
        var paletteOffset = 0
        var paletteEntrySize = 4

        /// RLE8 (1) or RLE4 (2).
        var isRunLength: Bool { compression == 1 || compression == 2 }
    }

    /// Decodes the bitmap in `b` laid out as `layout`; `hasAlpha` says whether any pixel came
    /// out translucent.
    static func decode(_ b: UnsafeRawBufferPointer, layout: Layout, limits: DecodeLimits) throws -> (pixels: PixelBuffer, hasAlpha: Bool) {
        let header = try readHeader(b, layout: layout)
        let size = PixelSize(width: header.width, height: header.height)
        try limits.check(canvas: size)
        let (rowBits, overflow) = header.width.multipliedReportingOverflow(by: header.bitCount)
        guard !overflow else { throw WebImageError.imageTooLarge(reason: "BMP row too long") }
        let rowStride = ((rowBits + 31) / 32) * 4
        let palette = try readPalette(b, header: header)
        let colorOffset = layout.pixelOffset ?? (header.paletteOffset + palette.count / 4 * header.paletteEntrySize)
        if header.isRunLength {
            guard colorOffset >= 0, colorOffset <= b.count else { throw WebImageError.badImageData(reason: "BMP pixel data ends early") }
            var skipped = false
            let pixels = try PixelBuffer.make(width: header.width, height: header.height) { out in
                skipped = try decodeRunLength(b, from: colorOffset, bits: header.bitCount, palette: palette, into: out, width: header.width, height: header.height)
            }
            return (pixels, skipped)
        }
        let maskStride = ((header.width + 31) / 32) * 4
        let colorBytes = rowStride.multipliedReportingOverflow(by: header.height)
        guard !colorBytes.overflow, colorOffset >= 0, colorOffset <= b.count, colorBytes.partialValue <= b.count - colorOffset else {
            throw WebImageError.badImageData(reason: "BMP pixel data ends early")
        }
        let maskOffset = colorOffset + colorBytes.partialValue
        // An icon's AND mask may be missing in the wild: then nothing is masked.
        let hasMask = layout.isIcon && maskStride * header.height <= b.count - maskOffset
        var translucent = false
        let channels = [header.masks.red, header.masks.green, header.masks.blue, header.masks.alpha].map(MaskChannel.init)
        let pixels = try PixelBuffer.make(width: header.width, height: header.height) { out in
            for row in 0..<header.height {
                let source = colorOffset + (header.topDown ? row : header.height - 1 - row) * rowStride
                try convertRow(b, at: source, header: header, palette: palette, channels: channels, into: out, at: row * header.width * 4)
            }
            // A 32-bit bitmap whose alpha bytes are all zero carries no alpha (common in BMPs);
            // an icon's transparency is then in its AND mask, as for fewer bits.
            var usesMask = hasMask && header.bitCount < 32
            if header.bitCount == 32 && header.masks.alpha != 0 {
                var anyAlpha = false
                for index in stride(from: 3, to: out.count, by: 4) where out[index] != 0 {
                    anyAlpha = true
                    break
                }
                if !anyAlpha {
                    for index in stride(from: 3, to: out.count, by: 4) { out[index] = 255 }
                    usesMask = hasMask
                }
            }
            if usesMask {
                for row in 0..<header.height {
                    let mask = maskOffset + (header.topDown ? row : header.height - 1 - row) * maskStride
                    let target = row * header.width * 4
                    for x in 0..<header.width where b[mask + x / 8] & (0x80 >> UInt8(x % 8)) != 0 {
                        out[target + x * 4 + 3] = 0
                    }
                }
            }
            for index in stride(from: 3, to: out.count, by: 4) where out[index] != 255 {
                translucent = true
                break
            }
        }
        return (pixels, translucent)
    }

    /// The size of the bitmap laid out as `layout`, validated as ``decode(_:layout:limits:)``
    /// would (without the pixel data).
    static func size(_ b: UnsafeRawBufferPointer, layout: Layout) throws -> PixelSize {
        let header = try readHeader(b, layout: layout)
        return PixelSize(width: header.width, height: header.height)
    }

    private static func readHeader(_ b: UnsafeRawBufferPointer, layout: Layout) throws -> Header {
        let at = layout.headerOffset
        guard let headerSize = u32(b, at) else { throw WebImageError.badImageData(reason: "BMP header ends early") }
        var header = Header()
        if headerSize == 12 {
            guard let width = u16(b, at + 4), let height = u16(b, at + 6), let bits = u16(b, at + 10) else {
                throw WebImageError.badImageData(reason: "BMP core header ends early")
            }
            header.width = Int(width)
            header.height = Int(height)
            header.bitCount = Int(bits)
            header.paletteEntrySize = 3
            header.paletteOffset = at + 12
        } else {
            guard headerSize >= 40, headerSize <= 1024, let width = u32(b, at + 4), let height = u32(b, at + 8),
                let bits = u16(b, at + 14), let compression = u32(b, at + 16), let used = u32(b, at + 32)
            else { throw WebImageError.badImageData(reason: "BMP info header ends early or is invalid") }
            header.width = Int(Int32(bitPattern: width))
            let signedHeight = Int(Int32(bitPattern: height))
            header.topDown = signedHeight < 0
            header.height = signedHeight.magnitude > Int(Int32.max) ? 0 : abs(signedHeight)
            header.bitCount = Int(bits)
            header.compression = Int(compression)
            header.colorsUsed = Int(used)
            header.paletteOffset = at + Int(headerSize)
            if header.compression == 3 || header.compression == 6 {
                // Bit fields: inside a V2+ header, else right after a 40-byte one.
                let inside = headerSize >= 52
                let masksAt = at + 40
                guard let red = u32(b, masksAt), let green = u32(b, masksAt + 4), let blue = u32(b, masksAt + 8) else {
                    throw WebImageError.badImageData(reason: "BMP bit fields end early")
                }
                let hasAlphaField = header.compression == 6 || headerSize >= 56
                header.masks = (red, green, blue, hasAlphaField ? (u32(b, masksAt + 12) ?? 0) : 0)
                if !inside { header.paletteOffset += header.compression == 6 ? 16 : 12 }
            } else if header.isRunLength {
                guard (header.compression == 1 && header.bitCount == 8) || (header.compression == 2 && header.bitCount == 4),
                    !layout.isIcon, !header.topDown
                else { throw WebImageError.badImageData(reason: "BMP run-length coding that does not match its layout") }
            } else if header.compression != 0 {
                let kind = [4: "JPEG", 5: "PNG"][header.compression] ?? "type \(header.compression)"
                throw WebImageError.unsupportedFormat(.bmp, reason: "\(kind)-compressed bitmaps are not decoded")
            }
        }
        if layout.isIcon { header.height /= 2 }
        switch header.bitCount {
        case 1, 4, 8, 24: break
        case 16:
            if header.compression == 0 { header.masks = (0x7C00, 0x03E0, 0x001F, 0) }
        case 32:
            if header.compression == 0 { header.masks = (0x00FF_0000, 0x0000_FF00, 0x0000_00FF, 0xFF00_0000) }
        default:
            throw WebImageError.badImageData(reason: "BMP with \(header.bitCount) bits per pixel")
        }
        guard header.width > 0, header.height > 0 else {
            throw WebImageError.badImageData(reason: "BMP of \(header.width)x\(header.height) pixels")
        }
        return header
    }

    /// The palette as RGBA bytes (empty above 8 bits per pixel).
    private static func readPalette(_ b: UnsafeRawBufferPointer, header: Header) throws -> [UInt8] {
        guard header.bitCount <= 8 else { return [] }
        let maximum = 1 << header.bitCount
        let count = header.colorsUsed > 0 ? min(header.colorsUsed, maximum) : maximum
        guard header.paletteOffset >= 0, count * header.paletteEntrySize <= b.count - header.paletteOffset else {
            throw WebImageError.badImageData(reason: "BMP palette ends early")
        }
        var palette = [UInt8](repeating: 255, count: count * 4)
        for index in 0..<count {
            let entry = header.paletteOffset + index * header.paletteEntrySize
            palette[index * 4] = b[entry + 2]
            palette[index * 4 + 1] = b[entry + 1]
            palette[index * 4 + 2] = b[entry]
        }
        return palette
    }

    private static func convertRow(
        _ b: UnsafeRawBufferPointer, at source: Int, header: Header, palette: [UInt8], channels: [MaskChannel],
        into out: UnsafeMutableBufferPointer<UInt8>, at target: Int
    ) throws {
        let width = header.width
        switch header.bitCount {
        case 1, 4, 8:
            let bits = header.bitCount
            let perByte = 8 / bits
            let mask = UInt8((1 << bits) - 1)
            for x in 0..<width {
                let byte = b[source + x / perByte]
                let shift = UInt8(8 - bits * (x % perByte + 1))
                let index = Int((byte >> shift) & mask) * 4
                let o = target + x * 4
                if index + 3 < palette.count {
                    out[o] = palette[index]
                    out[o + 1] = palette[index + 1]
                    out[o + 2] = palette[index + 2]
                } else {
                    out[o] = 0
                    out[o + 1] = 0
                    out[o + 2] = 0
                }
                out[o + 3] = 255
            }
        case 24:
            for x in 0..<width {
                let s = source + x * 3
                let o = target + x * 4
                out[o] = b[s + 2]
                out[o + 1] = b[s + 1]
                out[o + 2] = b[s]
                out[o + 3] = 255
            }
        default:  // 16 or 32 bits through the masks
            let bytes = header.bitCount / 8
            let alpha = channels[3]
            for x in 0..<width {
                let s = source + x * bytes
                var value = UInt32(b[s]) | UInt32(b[s + 1]) << 8
                if bytes == 4 { value |= UInt32(b[s + 2]) << 16 | UInt32(b[s + 3]) << 24 }
                let o = target + x * 4
                out[o] = channels[0].value(value)
                out[o + 1] = channels[1].value(value)
                out[o + 2] = channels[2].value(value)
                out[o + 3] = alpha.mask == 0 ? 255 : alpha.value(value)
            }
        }
    }

    /// One colour channel of a bit-field pixel, scaled to 8 bits.
    private struct MaskChannel {
        let mask: UInt32
        let shift: UInt32
        let maximum: UInt32

        init(_ mask: UInt32) {
            self.mask = mask
            shift = mask == 0 ? 0 : UInt32(mask.trailingZeroBitCount)
            maximum = mask == 0 ? 0 : mask >> shift
        }

        func value(_ pixel: UInt32) -> UInt8 {
            guard maximum > 0 else { return 0 }
            let raw = UInt64((pixel & mask) >> shift)
            return UInt8((raw * 255 + UInt64(maximum) / 2) / UInt64(maximum))
        }
    }

    /// Little-endian fields, bounds-checked by ``/WebImageCore/HeaderBytes``.
    static func u16(_ b: UnsafeRawBufferPointer, _ offset: Int) -> UInt16? {
        HeaderBytes(b).u16le(offset).map { UInt16(truncatingIfNeeded: $0) }
    }

    static func u32(_ b: UnsafeRawBufferPointer, _ offset: Int) -> UInt32? {
        HeaderBytes(b).u32le(offset).map { UInt32(truncatingIfNeeded: $0) }
    }
}
