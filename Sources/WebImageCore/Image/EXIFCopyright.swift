import Foundation

/// An image's EXIF copyright and artist (IFD0 tags 0x8298 `Copyright` and 0x013B `Artist`,
/// ASCII), read from a JPEG's APP1 `Exif` segment or a TIFF file's first directory, and written
/// back as the smallest EXIF block that carries only them.
///
/// Reading is bounded like ``EXIFOrientation``: offsets are checked against the block, the
/// entries visited are capped by the bytes available and each value by ``maximumLength``;
/// hostile data yields `nil`.
public struct EXIFCopyright: Sendable, Equatable {
    /// The longest value kept, in bytes (the whole APP1 segment must stay under 64 KiB).
    public static let maximumLength = 16 * 1024

    /// The `Copyright` value's bytes, without the terminating NULs.
    public var copyright: [UInt8]?
    /// The `Artist` value's bytes, without the terminating NULs.
    public var artist: [UInt8]?

    /// A copyright notice and artist (each at most ``maximumLength`` bytes, else cut there).
    public init(copyright: [UInt8]?, artist: [UInt8]?) {
        self.copyright = copyright.map { Array($0.prefix(Self.maximumLength)) }
        self.artist = artist.map { Array($0.prefix(Self.maximumLength)) }
    }

    /// The copyright and artist of a JPEG's EXIF or of a TIFF's first directory; `nil` when
    /// `data` is neither, or carries neither tag.
    public static func read(from data: Data) -> EXIFCopyright? {
        data.withUnsafeBytes { raw -> EXIFCopyright? in
            if let range = TIFFBlock.exifRange(inJPEG: raw) {
                return read(fromTIFF: UnsafeRawBufferPointer(rebasing: raw[range]))
            }
            return read(fromTIFF: raw)
        }
    }

    /// The two tags of IFD0 of the TIFF block `b`.
    static func read(fromTIFF b: UnsafeRawBufferPointer) -> EXIFCopyright? {
        guard let block = TIFFBlock(b), let ifd0 = block.firstDirectoryOffset else { return nil }
        let u16 = block.u16, u32 = block.u32
        func ascii(_ entry: Int) -> [UInt8]? {
            guard u16(entry + 2) == 2, let count = u32(entry + 4), count > 0 else { return nil }
            let start = count <= 4 ? entry + 8 : u32(entry + 8) ?? -1
            guard start >= 0, start <= b.count - count else { return nil }
            var value = Array(b[start..<(start + min(count, maximumLength))])
            while value.last == 0 { value.removeLast() }
            return value.isEmpty ? nil : value
        }
        var copyright: [UInt8]?, artist: [UInt8]?
        for entry in block.entries(at: ifd0) {
            switch u16(entry) {
            case 0x8298: copyright = ascii(entry)
            case 0x013B: artist = ascii(entry)
            default: continue
            }
        }
        guard copyright != nil || artist != nil else { return nil }
        return EXIFCopyright(copyright: copyright, artist: artist)
    }

    /// A little-endian TIFF block whose IFD0 holds only `Artist` and `Copyright` (those set),
    /// each ASCII value NUL-terminated.
    public var tiffBlock: [UInt8] {
        let values = [(0x013B, artist), (0x8298, copyright)].compactMap { tag, value in value.map { (tag, $0 + [0]) } }
        var block: [UInt8] = [0x49, 0x49, 42, 0]
        func u16(_ value: Int) { block += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func u32(_ value: Int) { u16(value & 0xFFFF); u16(value >> 16 & 0xFFFF) }
        u32(8)
        u16(values.count)
        var dataOffset = 8 + 2 + 12 * values.count + 4
        var data: [UInt8] = []
        for (tag, value) in values {
            u16(tag); u16(2); u32(value.count)
            if value.count <= 4 {
                block += value + [UInt8](repeating: 0, count: 4 - value.count)
            } else {
                u32(dataOffset)
                data += value
                dataOffset += value.count
            }
        }
        u32(0)
        return block + data
    }

    /// `jpeg` with an APP1 `Exif` segment holding ``tiffBlock`` after its start-of-image marker
    /// (and after a JFIF APP0 segment there); `jpeg` unchanged when it is not a JPEG.
    public func inserted(intoJPEG jpeg: Data) -> Data {
        let bytes = [UInt8](jpeg)
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return jpeg }
        var position = 2
        if bytes[2] == 0xFF, bytes[3] == 0xE0, bytes.count >= 6 {
            let length = Int(bytes[4]) << 8 | Int(bytes[5])
            if length >= 2, 4 + length <= bytes.count { position = 4 + length }
        }
        let body = Array("Exif".utf8) + [0, 0] + tiffBlock
        let length = body.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body
        return Data(bytes[..<position] + segment + bytes[position...])
    }
}
