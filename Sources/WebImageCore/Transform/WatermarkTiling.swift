/// The grid of a tiled watermark (``WatermarkPosition/replicate``): copies of the watermark at
/// `first` moved by whole steps, `columns` × `rows` of them, the grid centred on the image.
public struct WatermarkTiling: Sendable, Hashable {
    /// The watermark rectangle of the top-left tile (may start above or left of the image).
    public let first: PixelRect
    /// Distance between neighbouring watermarks across: watermark width plus the gap.
    public let stepX: Int
    /// Distance between neighbouring watermarks down: watermark height plus the gap.
    public let stepY: Int
    /// Tile columns (odd).
    public let columns: Int
    /// Tile rows (odd).
    public let rows: Int

    /// Creates a tiling description.
    public init(first: PixelRect, stepX: Int, stepY: Int, columns: Int, rows: Int) {
        self.first = first
        self.stepX = stepX
        self.stepY = stepY
        self.columns = columns
        self.rows = rows
    }

    /// The watermark rectangle of the tile at `column`, `row`.
    public func rect(column: Int, row: Int) -> PixelRect {
        PixelRect(x: first.x + column * stepX, y: first.y + row * stepY, width: first.width, height: first.height)
    }
}
