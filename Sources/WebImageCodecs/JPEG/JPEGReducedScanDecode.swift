import CJPEGLib
import CJPEGReduced
import CTurboJPEG
import Foundation
import WebImageCore

/// Progressive JPEG thumbnails from the least data (SPEC C-4a): a 1/8 or 1/4 decode of a
/// progressive file that entropy-decodes only what the reduced inverse DCT reads, one block at a
/// time, with no whole-image coefficient buffer.
///
/// A normal progressive decode by libjpeg-turbo entropy-decodes every scan into a whole-image
/// coefficient buffer before its first output row. Two decoders avoid that, tried in order:
///
/// 1. Our own (`wi_jpeg_reduced_decode`, C target `CJPEGReduced`): it parses the file itself and
///    decodes the AC scans block by block, all of a component's scans in step (each scan its own
///    bit position and end-of-band run), so it keeps one `Int16` per block for the DC and one
///    block of coefficients at a time. It then runs libjpeg-turbo's reduced pipeline in the same
///    integer arithmetic (1×1, 2×2 and 4×4 reduced IDCTs, replicated chroma at 1/8, YCbCr→RGB
///    tables), so the pixels are identical to TurboJPEG's decode of the whole file at that scale.
///    - At 1/8 it reads the DC scans of every component and the AC scans only of the components
///      libjpeg-turbo decodes at DCT scaled size 2 (4:2:0 chroma, see ``scaledSizes(_:)``); the
///      other AC scans are skipped by marker search.
///    - At 1/4 every scan is read (the 2×2 and 4×4 IDCTs read coefficients of every spectral
///      band); the gain is the block-at-a-time decode. Only grey, 4:4:4 and 4:2:0 files, whose
///      components need no upsampling at 1/4 (libjpeg's fancy upsampling is left to it).
///
///    It declines anything it does not reproduce exactly (restart markers out of sequence,
///    arithmetic coding, other samplings, values outside the range where libjpeg-turbo's C and
///    SIMD IDCTs agree, any damage).
/// 2. At 1/8 only: libjpeg given a stream of the original bytes minus the AC scans of the
///    scaled-size-1 components (``JPEGScanScript`` finds them by marker search), decoded with
///    interblock smoothing off. A component that libjpeg scales up by IDCT keeps all its scans.
///
/// Interblock smoothing: libjpeg-turbo smooths only when some low AC coefficients are not
/// exact, which is true of the reduced stream but not of a complete file whose scans code
/// every coefficient exactly; neither decoder smooths, and so both give the pixels of the
/// normal decode of the whole file. They are used only when that holds:
///
/// - the file walks cleanly: SOF2, the progression rules libjpeg checks, at most TurboJPEG's
///   scan limit, complete up to EOI;
/// - every coefficient of every component ends exact (Al = 0), so the whole-file decode does not
///   smooth, and every DC is complete;
/// - (libjpeg path) libjpeg confirms the output size and that the components planned DC-only
///   are at DCT scaled size 1, and decodes the reduced stream without any warning.
///
/// Otherwise the caller decodes normally. What the 1/8 decode does not see is damage inside the
/// AC scans it skips, which a strict normal decode reports as `badImageData`: such a file gives
/// its (undamaged) thumbnail here.
///
/// Not 1/2: there libjpeg-turbo's luma IDCT is the 4×4 one, which reads nearly every
/// coefficient, and its chroma is upsampled by its fancy filters.
enum JPEGReducedScanDecode {
    /// The scale at which the reduced stream (and the progressive preview's finality) applies.
    static let scaleDenominator = 8

    /// The scales our own decoder reproduces.
    static let ownScaleDenominators = [8, 4]

    /// The denominator of the scale TurboJPEG decodes a frame of `full` at when asked for `size`,
    /// when it is one of ``ownScaleDenominators``. `tjDecompress2` takes the first of its scaling
    /// factors (largest first) whose scaled size fits `size`, so a tiny frame asked for its 1/8
    /// size may be decoded at 1/4 or more (a 4×4 frame at 1/8 and at 1/4 is 1×1): then `nil`.
    static func ownScale(of full: PixelSize, decodedAt size: PixelSize) -> Int? {
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count), count > 0 else { return nil }
        for index in 0..<Int(count) {
            let num = Int(factors[index].num), denom = Int(factors[index].denom)
            guard num > 0, denom > 0 else { continue }
            // TJSCALED: ceil(dimension × num / denom). JPEG dimensions are ≤ 65535, num ≤ 16.
            let width = (full.width * num + denom - 1) / denom, height = (full.height * num + denom - 1) / denom
            guard width <= size.width, height <= size.height else { continue }
            let chosen = num == 1 && ownScaleDenominators.contains(denom) ? denom : nil
            return chosen.flatMap { JPEGCoder.reducedSize(of: full, scaleDenominator: $0) == size ? $0 : nil }
        }
        return nil
    }

    /// Which scans a 1/8 decode of a file reads.
    struct Plan: Equatable {
        /// Per scan of the script: whether it is kept.
        var keptScans: [Bool]
        /// Bit `i` set: component `i` is decoded from its DC alone.
        var dcOnlyComponents: UInt32
    }

    /// libjpeg-turbo's DCT scaled size for each component at 1/8 (`jpeg_calc_output_dimensions`:
    /// a chroma component is scaled up by IDCT, by powers of two, while that replaces upsampling).
    static func scaledSizes(_ components: [JPEGScanScript.Component]) -> [Int] {
        let maxH = components.map(\.horizontalSampling).max() ?? 1
        let maxV = components.map(\.verticalSampling).max() ?? 1
        return components.map { c in
            var size = 1
            while size < 8, maxH % (c.horizontalSampling * size * 2) == 0, maxV % (c.verticalSampling * size * 2) == 0 {
                size *= 2
            }
            return size
        }
    }

    /// The plan for `script`, or `nil` when the reduced decode would not give the final pixels.
    ///
    /// For a whole file every coefficient of every component must end exact (see the type's
    /// documentation). For a download still arriving (`script` walked as a prefix), the DC of
    /// every component and every coefficient of the components kept whole must be exact: no
    /// later scan can change what the 1/8 IDCT reads.
    static func plan(_ script: JPEGScanScript) -> Plan? {
        let sizes = scaledSizes(script.components)
        var dcOnly: UInt32 = 0
        for (index, size) in sizes.enumerated() where size == 1 { dcOnly |= 1 << index }
        for (index, bits) in script.coefficientBits.enumerated() {
            let needsAll = script.reachedEndOfImage || sizes[index] > 1
            guard bits[0] == 0, !needsAll || bits.allSatisfy({ $0 == 0 }) else { return nil }
        }
        let kept = script.scans.map { scan in
            scan.isDC || scan.components.contains { dcOnly & (1 << $0) == 0 }
        }
        // Nothing to gain when every scan is read anyway.
        guard kept.contains(false) else { return nil }
        return Plan(keptScans: kept, dcOnlyComponents: dcOnly)
    }

    /// The most our own decoder may allocate for its work on an output of `size`: eight times the
    /// output buffer the caller has already checked against its limits (at 1/8 its DC arrays and
    /// planes take about six bytes per output pixel for 4:2:0, at 1/4 about four), and at least
    /// 1 MiB.
    static func workingMemoryLimit(_ size: PixelSize) -> Int {
        let (bytes, overflow) = size.pixelCount.multipliedReportingOverflow(by: 32)
        return overflow ? Int.max : max(bytes, 1 << 20)
    }

    /// The stream libjpeg decodes: the original bytes up to the first scan, then every kept scan
    /// and every segment between scans (tables, restart intervals) in their order, then EOI.
    static func reducedStream(_ b: UnsafeRawBufferPointer, script: JPEGScanScript, plan: Plan) -> [UInt8] {
        guard let first = script.scans.first else { return [] }
        var ranges: [Range<Int>] = [0..<first.range.lowerBound]
        for (index, scan) in script.scans.enumerated() {
            if plan.keptScans[index] { ranges.append(scan.range) }
            if index + 1 < script.scans.count {
                ranges.append(scan.range.upperBound..<script.scans[index + 1].range.lowerBound)
            }
        }
        var stream: [UInt8] = []
        stream.reserveCapacity(ranges.reduce(2) { $0 + $1.count })
        for range in ranges { stream.append(contentsOf: b[range]) }
        stream.append(contentsOf: [0xFF, 0xD9])
        return stream
    }

    /// Decodes the progressive JPEG `b` at 1/`scaleDenominator` (8 or 4) into `out` (`size`, 4
    /// bytes per pixel: RGBA, or CMYK when `cmyk`). Returns `false`, with `out` to be
    /// overwritten, when the reduced decode does not apply; the caller then decodes normally.
    /// - Parameter acceptingPrefix: `b` is a download still arriving (progressive preview).
    static func decode(
        _ b: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt8>, size: PixelSize,
        scaleDenominator denominator: Int = scaleDenominator, cmyk: Bool, acceptingPrefix: Bool = false
    ) -> Bool {
        guard let source = b.baseAddress, let destination = out.baseAddress, out.count >= size.pixelCount * 4 else {
            return false
        }
        let ownResult = wi_jpeg_reduced_decode(
            source.assumingMemoryBound(to: UInt8.self), b.count, Int32(denominator), acceptingPrefix ? 1 : 0, cmyk ? 1 : 0,
            destination, size.width * 4, UInt32(size.width), UInt32(size.height), workingMemoryLimit(size))
        if Int(ownResult) == WI_JPEG_REDUCED_OK { return true }
        guard denominator == scaleDenominator else { return false }
        guard let script = try? JPEGScanScript(b, acceptingPrefix: acceptingPrefix), let plan = plan(script) else {
            return false
        }
        let stream = reducedStream(b, script: script, plan: plan)
        let colorSpace = cmyk ? JCS_CMYK : JCS_EXT_RGBA
        let rc = stream.withUnsafeBufferPointer { s in
            wi_jpeg_decode_scaled_unsmoothed(
                s.baseAddress, UInt(s.count), UInt32(scaleDenominator), Int32(colorSpace.rawValue),
                plan.dcOnlyComponents, destination, size.width * 4, UInt32(size.width), UInt32(size.height), nil, 0)
        }
        return Int(rc) == WI_JPEG_OK
    }
}
