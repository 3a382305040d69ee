// Our own reduced progressive JPEG decoder (CJPEGReduced) at 1/8 and 1/4, differential against
// libjpeg-turbo.
import CJPEGReduced
import CTurboJPEG
import Foundation
import WebImageCore

extension FuzzTarget {
    static let jpegEighthTarget = FuzzTarget(
        name: "jpeg-eighth",
        summary: "wi_jpeg_reduced_decode at 1/8 and 1/4 on the whole input and as a download prefix; wherever it gives pixels and TurboJPEG's own decode of the same input at that scale succeeds without a warning, every byte must be equal, and the prefix mode must agree with the whole-file mode",
        maxLength: 1 << 18, dictionary: "images.dict", usesImageCorpus: true,
        seeds: { jpegEighthSeeds },
        run: { data in
            data.withUnsafeBytes { b in
                for denominator in [8, 4] { checkReduced(b, denominator: denominator) }
            }
        })
}

/// The output size libjpeg gives at 1/`denominator` and whether the file is CMYK, from
/// TurboJPEG's header reader, or `nil` when it refuses the header, the output is over 16 MP / 64,
/// or TurboJPEG asked for that size would decode at another scale (its first scaling factor,
/// largest first, whose size fits: a 4×4 frame's 1/8 size is also its 1/4 size).
private func reducedHeader(_ b: UnsafeRawBufferPointer, handle: tjhandle, denominator: Int) -> (width: Int, height: Int, cmyk: Bool)? {
    guard let base = b.baseAddress else { return nil }
    var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
    guard tjDecompressHeader3(handle, base.assumingMemoryBound(to: UInt8.self), UInt(b.count), &width, &height, &subsampling, &colorspace) == 0,
        width > 0, height > 0
    else { return nil }
    let w = (Int(width) + denominator - 1) / denominator, h = (Int(height) + denominator - 1) / denominator
    guard w * h <= 16_000_000 / 64 else { return nil }
    var count: Int32 = 0
    guard let factors = tjGetScalingFactors(&count) else { return nil }
    let chosen = (0..<Int(count)).first { i in
        let num = Int(factors[i].num), denom = Int(factors[i].denom)
        return (Int(width) * num + denom - 1) / denom <= w && (Int(height) * num + denom - 1) / denom <= h
    }
    guard let chosen, factors[chosen].num == 1, Int(factors[chosen].denom) == denominator else { return nil }
    let cmyk = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
    return (w, h, cmyk)
}

private func checkReduced(_ b: UnsafeRawBufferPointer, denominator: Int) {
    guard let base = b.baseAddress?.assumingMemoryBound(to: UInt8.self), let handle = tjInitDecompress() else { return }
    defer { tjDestroy(handle) }
    guard let header = reducedHeader(b, handle: handle, denominator: denominator) else {
        // No size to check against: the decoder must still return, for either colour model.
        var pixel = [UInt8](repeating: 0, count: 4)
        for cmyk: Int32 in [0, 1] { _ = wi_jpeg_reduced_decode(base, b.count, Int32(denominator), 0, cmyk, &pixel, 4, 1, 1, 1 << 26) }
        return
    }
    let count = header.width * header.height * 4
    func own(prefix: Bool) -> (Int32, [UInt8]) {
        var out = [UInt8](repeating: 0xA5, count: count)
        let rc = out.withUnsafeMutableBufferPointer { o in
            wi_jpeg_reduced_decode(
                base, b.count, Int32(denominator), prefix ? 1 : 0, header.cmyk ? 1 : 0, o.baseAddress, header.width * 4,
                UInt32(header.width), UInt32(header.height), 1 << 28)
        }
        return (rc, out)
    }
    let whole = own(prefix: false)
    let asPrefix = own(prefix: true)
    if whole.0 == WI_JPEG_REDUCED_OK && asPrefix.0 == WI_JPEG_REDUCED_OK && whole.1 != asPrefix.1 {
        FuzzTarget.finding("jpeg-eighth: at 1/\(denominator) the prefix mode's pixels differ from the whole file's")
    }
    guard whole.0 == WI_JPEG_REDUCED_OK else { return }
    var reference = [UInt8](repeating: 0, count: count)
    let format = header.cmyk ? TJPF_CMYK : TJPF_RGBA
    let rc = reference.withUnsafeMutableBufferPointer { o in
        tjDecompress2(
            handle, base, UInt(b.count), o.baseAddress, Int32(header.width), Int32(header.width * 4), Int32(header.height),
            Int32(format.rawValue), Int32(TJFLAG_LIMITSCANS | TJFLAG_STOPONWARNING))
    }
    if rc == 0, reference != whole.1 {
        let first = reference.indices.first { reference[$0] != whole.1[$0] } ?? -1
        FuzzTarget.finding("jpeg-eighth: pixels differ from TurboJPEG's 1/\(denominator) decode at byte \(first) of \(count)")
    }
}

/// Progressive files written by TurboJPEG at test time: 4:2:0, 4:2:2, 4:4:4, grey and CMYK
/// (YCCK), a few sizes not multiples of 8 (small, so that mutations stay cheap).
private let jpegEighthSeeds: [(name: String, data: Data)] = {
    var seeds: [(String, Data)] = []
    let samplings: [(String, TJSAMP)] = [("420", TJSAMP_420), ("422", TJSAMP_422), ("444", TJSAMP_444), ("gray", TJSAMP_GRAY), ("440", TJSAMP_440)]
    for (width, height) in [(37, 29), (9, 17), (120, 41)] {
        for (name, subsampling) in samplings {
            for cmyk in [false, true] where !(cmyk && subsampling == TJSAMP_GRAY) {
                if let data = turboJPEGProgressive(width: width, height: height, subsampling: subsampling, cmyk: cmyk) {
                    seeds.append(("\(width)x\(height)-\(name)\(cmyk ? "-cmyk" : "").jpg", data))
                }
            }
        }
    }
    return seeds
}()

/// A progressive JPEG of seeded noise over gradients, written by TurboJPEG.
private func turboJPEGProgressive(width: Int, height: Int, subsampling: TJSAMP, cmyk: Bool) -> Data? {
    guard let handle = tjInitCompress() else { return nil }
    defer { tjDestroy(handle) }
    var state: UInt32 = 0x9E37_79B9
    var pixels = [UInt8](repeating: 255, count: width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            for c in 0..<(cmyk ? 4 : 3) {
                state = state &* 1_664_525 &+ 1_013_904_223
                pixels[(y * width + x) * 4 + c] = UInt8(truncatingIfNeeded: x * 5 + y * 3 * c + Int(state >> 28))
            }
        }
    }
    var jpeg: UnsafeMutablePointer<UInt8>?
    var size: UInt = 0
    let format = cmyk ? TJPF_CMYK : TJPF_RGBA
    let rc = tjCompress2(
        handle, pixels, Int32(width), 0, Int32(height), Int32(format.rawValue), &jpeg, &size, Int32(subsampling.rawValue), 85,
        Int32(TJFLAG_PROGRESSIVE))
    defer { tjFree(jpeg) }
    guard rc == 0, let jpeg else { return nil }
    return Data(bytes: jpeg, count: Int(size))
}
