import WebImage

/// Pages stacked top to bottom for `pages` when the result is a still image: each page at the
/// left edge, on a transparent canvas as wide as the widest page and as tall as all of them.
/// The canvas size is checked against `maxPixels` before it is allocated.
struct PageStack {
    let pages: [PixelBuffer]
    let maxPixels: Int

    /// The stacked canvas: ``ImageServiceError/tooLarge(_:)`` over `maxPixels`,
    /// ``ImageServiceError/unprocessable(_:)`` when the pages store samples differently.
    func render() throws(ImageServiceError) -> PixelBuffer {
        guard let format = pages.first?.format else { throw .unprocessable("no pages to stack") }
        guard pages.allSatisfy({ $0.format == format }) else {
            throw .unprocessable("the pages store their samples in different formats and cannot be stacked")
        }
        let width = pages.map(\.width).max() ?? 0
        var height = 0
        for page in pages {
            let (sum, overflow) = height.addingReportingOverflow(page.height)
            guard !overflow else { throw .tooLarge("the stacked pages exceed \(maxPixels) pixels") }
            height = sum
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPixels else {
            throw .tooLarge("\(pages.count) pages stacked are \(width)×\(height), over \(maxPixels) pixels")
        }
        let bytesPerPixel = format.bytesPerPixel, rowBytes = width * bytesPerPixel
        var bytes = [UInt8](repeating: 0, count: pixels * bytesPerPixel)
        var offset = 0
        bytes.withUnsafeMutableBytes { canvas in
            for page in pages {
                let pageRow = page.bytesPerRow
                page.bytes.withUnsafeBytes { source in
                    for row in 0..<page.height {
                        canvas.baseAddress!.advanced(by: offset + row * rowBytes)
                            .copyMemory(from: source.baseAddress!.advanced(by: row * pageRow), byteCount: pageRow)
                    }
                }
                offset += page.height * rowBytes
            }
        }
        return PixelBuffer(width: width, height: height, format: format, bytes: bytes)
    }
}
