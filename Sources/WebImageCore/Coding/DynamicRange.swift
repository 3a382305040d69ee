/// Which rendition of an HDR source a decode gives (SPEC H-5), like SDWebImage's
/// `decodeToHDR`.
public enum DynamicRange: Sendable, Hashable, CaseIterable {
    /// SDR, the default: PQ and HLG sources are tone-mapped to 8-bit sRGB (ITU-R BT.2408), a
    /// gain-map image is its SDR base with the map attached as ``Image/gainMap``.
    case standard
    /// HDR kept: a source stored with more than 8 bits a channel decodes to
    /// ``PixelFormat/rgba16`` with its colour description attached, so PQ and HLG keep their
    /// signal (CICP 9/16 or 9/18) instead of being tone-mapped, and encoders that can carry it
    /// (PNG 16-bit with `cICP`, AVIF 10/12-bit with `nclx`, JPEG XL 16-bit) write it as HDR. Encoders that
    /// cannot still tone-map to SDR. A gain-map image (an 8-bit JPEG or HEIC base) is its HDR
    /// rendition: the map applied to the base as ISO 21496-1 defines it, at
    /// ``DecodeOptions/displayHeadroom``, coded with PQ in BT.709 primaries
    /// (``GainMap/hdrPixelsCICP``) at 16 bits, with no map left attached. Other 8-bit sources
    /// decode as with ``standard``.
    case high
}
