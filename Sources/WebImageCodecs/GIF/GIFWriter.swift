import CGIF
import WebImageCore

/// The bytes giflib's output callback appends to.
final class GIFOutputBuffer {
    var bytes: [UInt8] = []
}

/// giflib's output callback: appends to the ``GIFOutputBuffer`` in `UserData`.
private func gifWrite(
    _ file: UnsafeMutablePointer<GifFileType>?, _ data: UnsafePointer<GifByteType>?, _ length: Int32
) -> Int32 {
    guard let file, let user = file.pointee.UserData, length >= 0 else { return 0 }
    guard let data, length > 0 else { return length }
    let output = Unmanaged<GIFOutputBuffer>.fromOpaque(user).takeUnretainedValue()
    output.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length)))
    return length
}

/// Writes frames as a GIF89a with giflib: one full-canvas frame per image frame, each with
/// its own (local) palette from `GIFQuantizer`.
///
/// - Animations get a NETSCAPE2.0 loop extension with the image's loop count (0 = forever),
///   except for loop count 1, which is written as no extension (play once) so that browsers
///   and this decoder agree.
/// - Every animation frame has a Graphic Control Extension: its duration in centiseconds
///   (rounded, at most 65535), disposal "restore to background" (each frame is a full canvas
///   that replaces the previous one) and the transparent index when the frame has one. A still
///   image gets a GCE only when it has transparency.
enum GIFWriter {
    /// Encodes `image` (already oriented and sized) with at most `maxColors` colours per frame.
    /// - Throws: `encodingFailed` when giflib reports an error or the size exceeds 65535.
    static func write(_ image: Image, maxColors: Int) throws -> [UInt8] {
        let width = image.width
        let height = image.height
        guard width <= 65_535, height <= 65_535 else {
            throw WebImageError.encodingFailed(reason: "GIF: \(width)x\(height) exceeds 65535 pixels per side")
        }
        let output = GIFOutputBuffer()
        var error: Int32 = 0
        guard let file = EGifOpen(Unmanaged.passUnretained(output).toOpaque(), gifWrite, &error) else {
            throw WebImageError.encodingFailed(reason: "GIF: \(GIFFileReader.message(error))")
        }
        var closed = false
        defer {
            if !closed { EGifCloseFile(file, &error) }
        }
        func check(_ result: Int32, _ step: String) throws {
            guard result == GIF_OK else {
                throw WebImageError.encodingFailed(reason: "GIF: \(step): \(GIFFileReader.message(file.pointee.Error))")
            }
        }

        let animated = image.frames.count > 1
        EGifSetGifVersion(file, true)
        try check(EGifPutScreenDesc(file, Int32(width), Int32(height), 8, 0, nil), "screen descriptor")
        if animated && image.loopCount != 1 {
            try writeLoopExtension(file, loopCount: min(65_535, max(0, image.loopCount)), check: check)
        }
        for frame in image.frames {
            let quantized = GIFQuantizer.quantize(frame.pixels, maxColors: maxColors)
            if animated || quantized.transparentIndex != nil {
                let delay = animated ? min(65_535, max(0, Int((frame.duration * 100).rounded()))) : 0
                var control = GraphicsControlBlock(
                    DisposalMode: animated ? DISPOSE_BACKGROUND : DISPOSAL_UNSPECIFIED, UserInputFlag: false,
                    DelayTime: Int32(delay), TransparentColor: Int32(quantized.transparentIndex ?? -1))
                var extensionBytes = [GifByteType](repeating: 0, count: 4)
                let length = EGifGCBToExtension(&control, &extensionBytes)
                try check(EGifPutExtension(file, GRAPHICS_EXT_FUNC_CODE, Int32(length), extensionBytes), "control extension")
            }
            try writeImage(file, quantized, width: width, height: height, check: check)
        }
        closed = true
        guard EGifCloseFile(file, &error) == GIF_OK else {
            throw WebImageError.encodingFailed(reason: "GIF: close: \(GIFFileReader.message(error))")
        }
        return withExtendedLifetime(output) { output.bytes }
    }

    private static func writeLoopExtension(
        _ file: UnsafeMutablePointer<GifFileType>, loopCount: Int, check: (Int32, String) throws -> Void
    ) throws {
        try check(EGifPutExtensionLeader(file, APPLICATION_EXT_FUNC_CODE), "loop extension")
        try check(EGifPutExtensionBlock(file, 11, Array("NETSCAPE2.0".utf8)), "loop extension")
        let value: [UInt8] = [1, UInt8(loopCount & 0xFF), UInt8(loopCount >> 8)]
        try check(EGifPutExtensionBlock(file, 3, value), "loop extension")
        try check(EGifPutExtensionTrailer(file), "loop extension")
    }

    private static func writeImage(
        _ file: UnsafeMutablePointer<GifFileType>, _ quantized: GIFQuantizer.Result, width: Int, height: Int,
        check: (Int32, String) throws -> Void
    ) throws {
        // giflib wants a power-of-two colour map of at least 2 entries.
        var size = 2
        while size < quantized.colorCount { size *= 2 }
        var colors = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: size)
        for i in 0..<quantized.colorCount {
            colors[i] = GifColorType(
                Red: quantized.colors[i * 3], Green: quantized.colors[i * 3 + 1], Blue: quantized.colors[i * 3 + 2])
        }
        guard let map = GifMakeMapObject(Int32(size), colors) else {
            throw WebImageError.encodingFailed(reason: "GIF: cannot make a colour map of \(size) entries")
        }
        defer { GifFreeMapObject(map) }
        try check(EGifPutImageDesc(file, 0, 0, Int32(width), Int32(height), false, map), "image descriptor")
        var indices = quantized.indices
        try indices.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            for y in 0..<height {
                try check(EGifPutLine(file, base + y * width, Int32(width)), "image data")
            }
        }
    }
}
