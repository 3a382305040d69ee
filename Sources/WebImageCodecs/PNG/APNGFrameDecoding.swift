import WebImageCore

/// Decodes one APNG frame by wrapping its data in a stand-alone PNG (signature, IHDR with the
/// frame's size, the file's PLTE/tRNS, the data as IDAT chunks, IEND) and running libspng on it.
/// A data chunk with a bad CRC fails the frame (image data is critical).
enum APNGFrameDecoding {
    /// The frame's pixels at the frame's own size.
    static func decode(
        _ frame: APNGFrame,
        of animation: APNGAnimation,
        header: PNGHeader,
        in bytes: UnsafeRawBufferPointer,
        limits: DecodeLimits
    ) throws -> PixelBuffer {
        let dataBytes = frame.dataChunks.reduce(0) { $0 + $1.data.count + 12 }
        var writer = PNGChunkWriter(capacity: dataBytes + 64)
        var ihdr: [UInt8] = []
        ihdr.appendBigEndian(UInt32(truncatingIfNeeded: frame.control.width))
        ihdr.appendBigEndian(UInt32(truncatingIfNeeded: frame.control.height))
        ihdr.append(contentsOf: [header.bitDepth, header.colorType, 0, 0, header.interlaced ? 1 : 0])
        writer.append(.ihdr, ihdr)
        for chunk in animation.sharedChunks {
            writer.appendRaw(UnsafeRawBufferPointer(rebasing: bytes[chunk]))
        }
        for chunk in frame.dataChunks {
            // The data gets a fresh CRC below, so the original one is checked first.
            guard chunk.hasValidCRC(in: bytes) else {
                throw WebImageError.badImageData(reason: "APNG: CRC mismatch in \(chunk.type)")
            }
            writer.append(.idat, UnsafeRawBufferPointer(rebasing: bytes[chunk.imageData]))
        }
        writer.append(.iend, [])
        let decoded = try writer.bytes.withUnsafeBytes { try SPNGDecoding.decode($0, limits: limits) }
        guard decoded.pixels.width == frame.control.width, decoded.pixels.height == frame.control.height else {
            throw WebImageError.badImageData(reason: "APNG frame size mismatch")
        }
        return decoded.pixels
    }
}
