import CTIFF
import WebImageCore

/// Where one strip or tile of the current directory lands in the page: its first row and
/// column, how many of its rows and columns are inside the page, and the bytes of one of its rows.
struct TIFFBlockPlacement {
    let top: Int
    let left: Int
    let rows: Int
    let columns: Int
    let rowBytes: Int
}

extension TIFFMemoryFile {
    /// Reads the current directory's strips or tiles one at a time (contiguous samples of
    /// `bytesPerPixel` bytes a pixel) and hands each decoded block to `body` with its placement.
    /// The block size from the directory is checked against the page's layout and the single
    /// allocation limit before the block buffer exists, and each read against what `body` will
    /// touch. `size` must have been checked against the limits.
    /// - Throws: `badImageData` for an inconsistent layout or corrupt or truncated data, and what
    ///   `body` throws.
    func forEachBlock(size: PixelSize, bytesPerPixel: Int, _ body: (UnsafeRawPointer, TIFFBlockPlacement) throws -> Void) throws {
        let tiled = TIFFIsTiled(handle) != 0
        let blockWidth: Int
        let blockHeight: Int
        let blockBytes: Int
        if tiled {
            blockWidth = Int(uint32(TIFFTAG_TILEWIDTH) ?? 0)
            blockHeight = Int(uint32(TIFFTAG_TILELENGTH) ?? 0)
            blockBytes = Int(TIFFTileSize(handle))
        } else {
            blockWidth = size.width
            blockHeight = min(size.height, Int(uint32(TIFFTAG_ROWSPERSTRIP) ?? UInt32(size.height)))
            blockBytes = Int(TIFFStripSize(handle))
        }
        let rowBytes = blockWidth.multipliedReportingOverflow(by: bytesPerPixel)
        let needed = rowBytes.partialValue.multipliedReportingOverflow(by: blockHeight)
        guard blockWidth > 0, blockHeight > 0, bytesPerPixel > 0, blockBytes > 0, blockBytes <= TIFFMemoryFile.maxSingleAllocation,
            !rowBytes.overflow, !needed.overflow, needed.partialValue <= blockBytes
        else { throw failure("inconsistent strip or tile size") }
        let block = UnsafeMutableRawPointer.allocate(byteCount: blockBytes, alignment: 16)
        defer { block.deallocate() }
        for top in stride(from: 0, to: size.height, by: blockHeight) {
            for left in stride(from: 0, to: size.width, by: blockWidth) {
                let placement = TIFFBlockPlacement(
                    top: top, left: left, rows: min(blockHeight, size.height - top), columns: min(blockWidth, size.width - left),
                    rowBytes: rowBytes.partialValue)
                let read =
                    tiled
                    ? TIFFReadEncodedTile(handle, TIFFComputeTile(handle, UInt32(left), UInt32(top), 0, 0), block, tmsize_t(blockBytes))
                    : TIFFReadEncodedStrip(handle, TIFFComputeStrip(handle, UInt32(top), 0), block, tmsize_t(blockBytes))
                guard read >= 0, Int(read) >= (placement.rows - 1) * placement.rowBytes + placement.columns * bytesPerPixel else {
                    throw failure("corrupt or truncated image data")
                }
                try body(UnsafeRawPointer(block), placement)
            }
        }
    }
}
