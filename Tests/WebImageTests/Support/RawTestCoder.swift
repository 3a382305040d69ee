import Foundation
import Synchronization
import WebImage
import WebImageCore

/// A trivial image format for the cache and loader tests: the magic `RAWI`, width and height as
/// big-endian UInt32, then RGBA8 rows. It is progressive (every complete row received so far can
/// be shown), encodes to itself (as "png"/"jpeg", so caches can store images without bytes) and
/// counts its decodes and encodes.
final class RawTestCoder: ProgressiveImageDecoding {
    let decodeCount = Atomic<Int>(0)
    let encodeCount = Atomic<Int>(0)

    static let magic: [UInt8] = Array("RAWI".utf8)
    static let headerSize = 12

    /// An encoded `width`×`height` image whose pixel (x, y) is (x, y, seed, 255).
    static func encode(width: Int, height: Int, seed: UInt8 = 7) -> Data {
        var bytes = magic
        for value in [UInt32(width), UInt32(height)] {
            withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
        }
        bytes.reserveCapacity(headerSize + width * height * 4)
        for y in 0..<height {
            for x in 0..<width { bytes.append(contentsOf: [UInt8(truncatingIfNeeded: x), UInt8(truncatingIfNeeded: y), seed, 255]) }
        }
        return Data(bytes)
    }

    static func header(_ data: Data) -> (width: Int, height: Int)? {
        guard data.count >= headerSize, Array(data.prefix(4)) == magic else { return nil }
        func read(_ offset: Int) -> Int {
            data.dropFirst(offset).prefix(4).reduce(0) { $0 << 8 | Int($1) }
        }
        let width = read(4)
        let height = read(8)
        guard width > 0, height > 0, width <= 4096, height <= 4096 else { return nil }
        return (width, height)
    }

    func canDecode(_ data: Data) -> Bool { data.count >= 4 && Array(data.prefix(4)) == Self.magic }

    func decode(_ data: Data, options: DecodeOptions) throws -> Image {
        decodeCount.add(1, ordering: .relaxed)
        guard let (width, height) = Self.header(data), data.count == Self.headerSize + width * height * 4 else {
            throw WebImageError.badImageData(reason: "truncated RAWI")
        }
        return Self.image(data, width: width, height: height, rows: height, options: options)
    }

    /// Decodes the first `rows` rows (the rest transparent), resized to the options' target.
    static func image(_ data: Data, width: Int, height: Int, rows: Int, options: DecodeOptions) -> Image {
        let target = options.targetSize(for: PixelSize(width: width, height: height))
        let pixels = PixelBuffer.make(width: target.width, height: target.height) { out in
            data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                for ty in 0..<target.height {
                    let sy = ty * height / target.height
                    for tx in 0..<target.width {
                        let sx = tx * width / target.width
                        let o = (ty * target.width + tx) * 4
                        if sy < rows {
                            let i = headerSize + (sy * width + sx) * 4
                            for c in 0..<4 { out[o + c] = raw[i + c] }
                        } else {
                            for c in 0..<4 { out[o + c] = 0 }
                        }
                    }
                }
            }
        }
        return Image(pixels: pixels, scale: options.scaleFactor ?? 1, format: .unknown)
    }

    func canEncode(_ format: ImageFormat) -> Bool { format == .png || format == .jpeg }

    func encode(_ image: Image, format: ImageFormat, options: EncodeOptions) throws -> Data {
        encodeCount.add(1, ordering: .relaxed)
        return Self.encode(image.pixels)
    }

    /// `pixels` in this format.
    static func encode(_ pixels: PixelBuffer) -> Data {
        var bytes = magic
        for value in [UInt32(pixels.width), UInt32(pixels.height)] {
            withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
        }
        bytes.append(contentsOf: pixels.bytes)
        return Data(bytes)
    }

    func canDecodeIncrementally(_ header: Data) -> Bool { Self.header(header) != nil }

    func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoder {
        RawIncrementalDecoder(options: options)
    }
}

/// The incremental decoder of ``RawTestCoder``; counts its calls.
final class RawIncrementalDecoder: IncrementalImageDecoder {
    let options: DecodeOptions
    private var shownRows = 0

    init(options: DecodeOptions) { self.options = options }

    func update(_ data: Data, isComplete: Bool) throws -> Image? {
        guard let (width, height) = RawTestCoder.header(data) else {
            if isComplete { throw WebImageError.badImageData(reason: "no RAWI header") }
            return nil
        }
        let rows = min(height, (data.count - RawTestCoder.headerSize) / (width * 4))
        if isComplete {
            guard rows == height else { throw WebImageError.badImageData(reason: "truncated RAWI") }
            return RawTestCoder.image(data, width: width, height: height, rows: rows, options: options)
        }
        guard rows > shownRows else { return nil }
        shownRows = rows
        return RawTestCoder.image(data, width: width, height: height, rows: rows, options: options)
    }
}

