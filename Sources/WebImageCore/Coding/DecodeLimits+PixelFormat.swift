extension DecodeLimits {
    /// ``check(canvas:)`` for a decode into `format`: the pixel limit as always, and the
    /// decoded-bytes budget at `format.bytesPerPixel` (8 for ``PixelFormat/rgba16``), both from
    /// the header, before pixel memory is allocated.
    public func check(canvas size: PixelSize, format: PixelFormat) throws {
        try check(canvas: size)
        if format == .rgba16 { try checkBudget(frames: 2, of: size) }
    }

    /// ``checkBudget(frames:of:extraCanvases:)`` for buffers in `format`: a 16-bit pixel counts
    /// as two 8-bit ones.
    public func checkBudget(frames: Int, of size: PixelSize, format: PixelFormat) throws {
        try checkBudget(frames: format == .rgba16 ? max(frames, 0) * 2 : frames, of: size)
    }
}
