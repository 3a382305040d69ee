import Foundation
import WebImage

/// A grid of thumbnails composed into one opaque picture: each cell a light square with the
/// thumbnail's first frame (EXIF orientation applied, alpha blended over the cell) centred in
/// it; a missing image (a failed load) is a dark red cell with a cross.
struct ContactSheet {
    /// The edge of the square each thumbnail fits in.
    var cellEdge: Int
    /// Space around each cell.
    var gap = 6

    static let background = RGBA(r: 38, g: 40, b: 46)
    static let cellColor = RGBA(r: 236, g: 236, b: 236)
    static let failedColor = RGBA(r: 110, g: 24, b: 28)
    static let crossColor = RGBA(r: 240, g: 90, b: 90)

    /// The sheet for `images` in order (`nil`: a failed cell), as close to square as the count allows.
    func compose(_ images: [Image?]) -> PixelBuffer {
        let count = max(1, images.count)
        let columns = max(1, Int(Double(count).squareRoot().rounded(.up)))
        let rows = (count + columns - 1) / columns
        let pitch = cellEdge + gap
        let width = columns * pitch + gap
        let height = rows * pitch + gap
        let cells: [PixelBuffer?] = images.map { image in
            guard let image else { return nil }
            let pixels = image.orientation == .up ? image.pixels : image.pixels.applying(image.orientation)
            if pixels.width <= cellEdge, pixels.height <= cellEdge { return pixels }
            let scale = min(Double(cellEdge) / Double(pixels.width), Double(cellEdge) / Double(pixels.height))
            return pixels.downscaled(
                to: PixelSize(width: max(1, Int(Double(pixels.width) * scale)), height: max(1, Int(Double(pixels.height) * scale))))
        }
        return PixelBuffer.make(width: width, height: height) { out in
            Self.fill(out, width: width, x: 0, y: 0, w: width, h: height, Self.background)
            for (index, cell) in cells.enumerated() {
                let left = gap + (index % columns) * pitch
                let top = gap + (index / columns) * pitch
                guard let cell else {
                    Self.fill(out, width: width, x: left, y: top, w: cellEdge, h: cellEdge, Self.failedColor)
                    Self.cross(out, width: width, x: left, y: top, edge: cellEdge)
                    continue
                }
                Self.fill(out, width: width, x: left, y: top, w: cellEdge, h: cellEdge, Self.cellColor)
                Self.blend(cell, into: out, width: width, x: left + (cellEdge - cell.width) / 2, y: top + (cellEdge - cell.height) / 2)
            }
        }
    }

    /// The sheet encoded as PNG with the registered coder.
    func png(_ images: [Image?], coders: CodersManager = .shared) throws -> (data: Data, size: PixelSize) {
        let sheet = compose(images)
        let data = try coders.encode(Image(pixels: sheet, format: .png, hasAlpha: false), format: .png, options: .default)
        return (data, PixelSize(width: sheet.width, height: sheet.height))
    }

    private static func fill(_ out: UnsafeMutableBufferPointer<UInt8>, width: Int, x: Int, y: Int, w: Int, h: Int, _ color: RGBA) {
        for row in y..<(y + h) {
            var i = (row * width + x) * 4
            for _ in 0..<w {
                out[i] = color.r
                out[i + 1] = color.g
                out[i + 2] = color.b
                out[i + 3] = 255
                i += 4
            }
        }
    }

    private static func cross(_ out: UnsafeMutableBufferPointer<UInt8>, width: Int, x: Int, y: Int, edge: Int) {
        let margin = edge / 4
        for step in margin..<(edge - margin) {
            for thickness in -1...1 {
                for column in [step + thickness, edge - 1 - step + thickness] where (0..<edge).contains(column) {
                    let i = ((y + step) * width + x + column) * 4
                    out[i] = crossColor.r
                    out[i + 1] = crossColor.g
                    out[i + 2] = crossColor.b
                }
            }
        }
    }

    /// Straight-alpha "over": `source` blended onto the opaque sheet at (`x`, `y`).
    private static func blend(_ source: PixelBuffer, into out: UnsafeMutableBufferPointer<UInt8>, width: Int, x: Int, y: Int) {
        source.bytes.withUnsafeBufferPointer { src in
            for row in 0..<source.height {
                var s = row * source.width * 4
                var d = ((y + row) * width + x) * 4
                for _ in 0..<source.width {
                    let alpha = Int(src[s + 3])
                    for channel in 0..<3 {
                        out[d + channel] = UInt8((Int(src[s + channel]) * alpha + Int(out[d + channel]) * (255 - alpha) + 127) / 255)
                    }
                    s += 4
                    d += 4
                }
            }
        }
    }
}
