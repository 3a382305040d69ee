extension Image {
    /// The pixel format of the frames: ``PixelFormat/rgba16`` when any frame is 16-bit.
    public var pixelFormat: PixelFormat {
        frames.contains { $0.pixels.format == .rgba16 } ? .rgba16 : .rgba8
    }

    /// The image with every frame in RGBA8 (``PixelBuffer/convertedToRGBA8()``): `self` when it
    /// already is. Everything else (profile, gain map, orientation…) is kept. Transformers that
    /// work on 8 bits only call this first.
    public func convertedToRGBA8() -> Image {
        guard pixelFormat == .rgba16 else { return self }
        return mappingFrames { $0.convertedToRGBA8() } ?? self
    }
}
