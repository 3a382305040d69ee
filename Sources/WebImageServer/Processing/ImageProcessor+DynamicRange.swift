import WebImage

extension ImageProcessor {
    /// The outputs that carry HDR from a PQ or HLG source here: PNG (16-bit with a `cICP`
    /// chunk), AVIF (10/12-bit with its CICP in `nclx`), JPEG XL (16-bit with its colour
    /// encoding) and JPEG (the SDR rendition plus a gain map computed from the HDR pixels).
    static let hdrOutputs: Set<OutputFormat> = [.png, .avif, .jxl, .jpeg]

    /// The decode's dynamic range for a request rendered as `output` (`nil`: not known before
    /// the encode, as with `best`): ``/WebImageCore/DynamicRange/high`` when `preserve_hdr`
    /// (else the service's `preserve-hdr`) is on and `output` carries HDR, else
    /// ``/WebImageCore/DynamicRange/standard``, so every other output is tone-mapped as before.
    func dynamicRange(for options: ProcessingOptions, output: OutputFormat?) -> DynamicRange {
        guard options.preserveHDR ?? preserveHDR, let output, Self.hdrOutputs.contains(output) else { return .standard }
        return .high
    }
}
