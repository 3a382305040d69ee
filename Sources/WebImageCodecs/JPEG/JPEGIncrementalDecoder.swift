import Foundation
import WebImageCore

/// Shows a JPEG while it downloads (SPEC D-8). One instance per download, called serially.
///
/// Each call continues a ``JPEGMarkerScanner`` over the new bytes (so every byte is examined
/// once) and decodes the prefix with TurboJPEG only when there is meaningfully more to show:
/// - progressive files: when another scan has fully arrived (a new refinement pass);
/// - sequential (baseline) files: when the entropy-coded data has grown by a tenth of an
///   estimate of the whole (1 bit per pixel, a low guess for photos) or by a tenth of what was
///   shown last, whichever is larger, and by at least 1 KiB — so a large photo costs a bounded
///   number of partial decodes, not one per network packet.
///
/// Partial decodes accept libjpeg's "premature end" warnings (the missing part is filled by the
/// library); any other failure just means nothing new is shown yet. The call with
/// `isComplete == true` performs a normal, strict decode.
///
/// A progressive file shown at 1/8 (a small thumbnail) is final as soon as the scans the 1/8
/// decode reads have arrived (SPEC C-4a, ``JPEGReducedScanDecode``): that partial image is
/// decoded from those scans alone, and later partial calls show nothing new.
final class JPEGIncrementalDecoder: IncrementalImageDecoder {
    private let options: DecodeOptions
    private var scanner = JPEGMarkerScanner()
    private var scannedCount = 0
    private var shownScans = 0
    private var shownEntropyBytes = 0
    /// Whether the image decodes at 1/8 of the stored size, once the header has arrived.
    private var decodesAtEighth: Bool?
    /// Whether the image shown is already the final one at 1/8.
    private var shownFinalAtEighth = false

    init(options: DecodeOptions) {
        self.options = options
    }

    func update(_ data: Data, isComplete: Bool) throws -> Image? {
        if isComplete {
            return try JPEGDecompression.decode(data, options: options, acceptDamage: false)
        }
        if data.count < scannedCount {
            // Not a longer prefix of the same download: start over.
            scanner = JPEGMarkerScanner()
            shownScans = 0
            shownEntropyBytes = 0
            decodesAtEighth = nil
            shownFinalAtEighth = false
        }
        scannedCount = data.count
        data.withUnsafeBytes { scanner.scan($0) }
        guard !scanner.isMalformed, let frame = scanner.frame, frame.precision == 8, frame.isSupportedProcess,
            let scanStart = scanner.firstScanDataOffset, data.count > scanStart
        else { return nil }

        let entropyBytes = data.count - scanStart
        var finalAtEighth = false
        if frame.isProgressive {
            guard scanner.completedScans > shownScans, !shownFinalAtEighth else { return nil }
            finalAtEighth = data.withUnsafeBytes { isFinalAtEighth($0) }
        } else {
            let estimate = PixelSize(width: frame.width, height: frame.height).pixelCount / 8
            let step = max(estimate / 10, shownEntropyBytes / 10, 1024)
            guard entropyBytes >= shownEntropyBytes + step else { return nil }
        }
        guard let image = try? JPEGDecompression.decode(data, options: options, acceptDamage: true) else {
            return nil
        }
        shownScans = scanner.completedScans
        shownEntropyBytes = entropyBytes
        shownFinalAtEighth = finalAtEighth
        return image
    }

    /// Whether the prefix `b` of a progressive file holds every scan its 1/8 decode reads, when
    /// the options make it decode at 1/8.
    private func isFinalAtEighth(_ b: UnsafeRawBufferPointer) -> Bool {
        if decodesAtEighth == nil, let handle = try? TurboJPEGHandle.decompressor(),
            let header = try? JPEGDecompression.readHeader(b, handle: handle)
        {
            let eighth = JPEGCoder.reducedSize(of: header.size, scaleDenominator: JPEGReducedScanDecode.scaleDenominator)
            decodesAtEighth = JPEGDecompression.plannedDecodeSize(header, options: options) == eighth
        }
        guard decodesAtEighth == true, let script = try? JPEGScanScript(b, acceptingPrefix: true) else { return false }
        return JPEGReducedScanDecode.plan(script) != nil
    }
}
