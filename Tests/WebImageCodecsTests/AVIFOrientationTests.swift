import CAVIF
import Foundation
import Testing
import WebImageCodecs
import WebImageCore

/// Lossless AVIF files with `irot`/`imir` properties, encoded here with libavif (no corpus file
/// carries them).
enum AVIFTestEncoder {
    /// `pixels` (opaque) as a lossless AVIF (4:4:4, identity matrix) with the given quarter
    /// turns anticlockwise and mirror mode (`nil`: no `imir`).
    static func encode(_ pixels: PixelBuffer, rotation: UInt8?, mirror: UInt8?) throws -> Data {
        guard let image = avifImageCreate(UInt32(pixels.width), UInt32(pixels.height), 8, AVIF_PIXEL_FORMAT_YUV444) else {
            throw WebImageError.unsupportedFormat(.avif, reason: "avifImageCreate failed")
        }
        defer { avifImageDestroy(image) }
        image.pointee.matrixCoefficients = avifMatrixCoefficients(AVIF_MATRIX_COEFFICIENTS_IDENTITY)
        image.pointee.yuvRange = AVIF_RANGE_FULL
        var bytes = pixels.bytes
        let converted = bytes.withUnsafeMutableBufferPointer { buffer -> avifResult in
            var rgb = avifRGBImage()
            avifRGBImageSetDefaults(&rgb, image)
            rgb.format = AVIF_RGB_FORMAT_RGBA
            rgb.depth = 8
            rgb.pixels = buffer.baseAddress
            rgb.rowBytes = UInt32(pixels.width * 4)
            return avifImageRGBToYUV(image, &rgb)
        }
        try #require(converted == AVIF_RESULT_OK)
        if let rotation {
            image.pointee.transformFlags |= avifTransformFlags(AVIF_TRANSFORM_IROT.rawValue)
            image.pointee.irot.angle = rotation
        }
        if let mirror {
            image.pointee.transformFlags |= avifTransformFlags(AVIF_TRANSFORM_IMIR.rawValue)
            image.pointee.imir.mode = mirror
        }
        guard let encoder = avifEncoderCreate() else { throw WebImageError.unsupportedFormat(.avif, reason: "no encoder") }
        defer { avifEncoderDestroy(encoder) }
        encoder.pointee.minQuantizer = AVIF_QUANTIZER_LOSSLESS
        encoder.pointee.maxQuantizer = AVIF_QUANTIZER_LOSSLESS
        encoder.pointee.speed = 10
        encoder.pointee.maxThreads = 1
        var output = avifRWData()
        try #require(avifEncoderWrite(encoder, image, &output) == AVIF_RESULT_OK)
        defer { avifRWDataFree(&output) }
        return Data(bytes: output.data, count: output.size)
    }
}

@Suite("AVIF irot/imir orientation")
struct AVIFOrientationTests {
    /// An opaque pattern without symmetry.
    let stored = PixelBuffer.make(width: 6, height: 4) { out in
        for y in 0..<4 {
            for x in 0..<6 {
                let i = (y * 6 + x) * 4
                out[i] = UInt8(x * 40)
                out[i + 1] = UInt8(y * 60)
                out[i + 2] = UInt8((x + y * 6) * 9)
                out[i + 3] = 255
            }
        }
    }

    /// The stored pixels as HEIF shows them, computed here from coordinates: `rotation` quarter
    /// turns anticlockwise, then the mirror (0: top↔bottom, 1: left↔right).
    private func expected(rotation: Int, mirror: Int?) -> [UInt8] {
        var width = stored.width, height = stored.height
        var grid: [[[UInt8]]] = (0..<height).map { y in
            (0..<width).map { x in Array(stored.bytes[(y * width + x) * 4..<(y * width + x) * 4 + 4]) }
        }
        for _ in 0..<rotation {  // one quarter turn anticlockwise: new[y][x] = old[x][width-1-y]
            let old = grid
            (width, height) = (height, width)
            grid = (0..<height).map { y in (0..<width).map { x in old[x][height - 1 - y] } }
        }
        switch mirror {
        case 0: grid.reverse()
        case 1: grid = grid.map { $0.reversed() }
        default: break
        }
        return grid.flatMap { $0.flatMap { $0 } }
    }

    @Test(
        "Given each rotation with and without each mirror, then decode shows the image turned as HEIF says, metadata reports the orientation, and applyOrientation off keeps the coded pixels",
        arguments: [0, 1, 2, 3], [nil, 0, 1] as [Int?])
    func appliesTransforms(rotation: Int, mirror: Int?) throws {
        let file = try AVIFTestEncoder.encode(
            stored, rotation: rotation == 0 && mirror == nil ? nil : UInt8(rotation), mirror: mirror.map(UInt8.init))
        let coder = AVIFCoder()
        let upright = try coder.decode(file, options: .default)
        #expect(upright.orientation == .up)
        #expect(upright.pixels.bytes == expected(rotation: rotation, mirror: mirror))
        #expect(upright.width == (rotation % 2 == 1 ? stored.height : stored.width))

        let asCoded = try coder.decode(file, options: DecodeOptions(applyOrientation: false))
        #expect(asCoded.pixels.bytes == stored.bytes)
        let metadata = try coder.readMetadata(file)
        #expect(metadata.orientation == asCoded.orientation)
        #expect(asCoded.pixels.applying(asCoded.orientation).bytes == upright.pixels.bytes)
        #expect(metadata.pixelSize == PixelSize(width: stored.width, height: stored.height))

        let source = try coder.makeAnimatedSource(file, options: .default)
        #expect(try source.frame(at: 0).bytes == upright.pixels.bytes)
        #expect(source.canvasSize == upright.pixelSize)
    }
}
