// The progressive JPEG scan walker and the reduced-scan 1/8 decode built on it (SPEC C-4a).
import Foundation
import WebImageCore

@testable import WebImageCodecs

extension FuzzTarget {
    static let jpegScansTarget = FuzzTarget(
        name: "jpeg-scans",
        summary: "JPEGScanScript over a whole file and over a download prefix (scan ranges in order and inside the data, parameters in range, at most 500 scans), the reduced-scan plan and stream, the libjpeg decode of that stream at 1/8, and JPEGCoder's public 1/8 decode",
        maxLength: 1 << 18, dictionary: "images.dict", usesImageCorpus: true,
        seeds: { jpegScanSeeds },
        run: { data in
            data.withUnsafeBytes { b in
                for acceptingPrefix in [false, true] { checkScanWalk(b, acceptingPrefix: acceptingPrefix) }
            }
            // Colour conversion off: a CMYK file would otherwise leave its transform in the
            // shared cache, and each input is judged on its own (the `decode` target covers it).
            // One 1/8 decode: photos up to 16 MP stay cheap, so they are read (the `decode`
            // target's eight whole decodes stop at 4 MP).
            var options = fuzzDecodeOptions
            options.limits.maxPixelCount = 16_000_000
            options.colorManagement = .ignore
            do {
                _ = try JPEGCoder().decode(data, scaleDenominator: 8, options: options)
            } catch is WebImageError {
            } catch {
                FuzzTarget.finding("jpeg-scans: untyped error \(error)")
            }
        })
}

/// Walks `b`, checks the script's invariants, and runs the reduced decode when a plan exists.
private func checkScanWalk(_ b: UnsafeRawBufferPointer, acceptingPrefix: Bool) {
    let script: JPEGScanScript
    do {
        script = try JPEGScanScript(b, acceptingPrefix: acceptingPrefix)
    } catch {
        return
    }
    if script.scans.count > JPEGScanScript.turboJPEGScanLimit { FuzzTarget.finding("more scans than the limit") }
    if script.components.isEmpty || script.components.count > 4 { FuzzTarget.finding("\(script.components.count) components") }
    var end = 2
    for scan in script.scans {
        if scan.range.lowerBound < end || scan.range.upperBound > b.count || scan.range.count < 10 {
            FuzzTarget.finding("scan range \(scan.range) after \(end) in \(b.count) bytes")
        }
        if scan.components.isEmpty || scan.components.contains(where: { $0 >= script.components.count }) {
            FuzzTarget.finding("scan components \(scan.components)")
        }
        if scan.spectralStart > scan.spectralEnd || scan.spectralEnd > 63 { FuzzTarget.finding("band \(scan.spectralStart)-\(scan.spectralEnd)") }
        end = scan.range.upperBound
    }
    guard let plan = JPEGReducedScanDecode.plan(script) else { return }
    if plan.keptScans.count != script.scans.count { FuzzTarget.finding("plan of \(plan.keptScans.count) scans for \(script.scans.count)") }
    let stream = JPEGReducedScanDecode.reducedStream(b, script: script, plan: plan)
    if stream.count > b.count + 2 || stream.prefix(2) != [0xFF, 0xD8] || stream.suffix(2) != [0xFF, 0xD9] {
        FuzzTarget.finding("reduced stream of \(stream.count) bytes from \(b.count)")
    }
    var scanner = JPEGMarkerScanner()
    scanner.scan(b, stopAtFirstScan: true)
    guard let frame = scanner.frame else { FuzzTarget.finding("a script without a frame") }
    let size = JPEGCoder.reducedSize(of: PixelSize(width: frame.width, height: frame.height), scaleDenominator: 8)
    // The same bound as the target's public decode (16 MP at full size).
    guard size.pixelCount <= 16_000_000 / 64 else { return }
    var out = [UInt8](repeating: 0, count: size.pixelCount * 4)
    _ = out.withUnsafeMutableBufferPointer { o in
        JPEGReducedScanDecode.decode(b, into: o, size: size, cmyk: false, acceptingPrefix: acceptingPrefix)
    }
}

/// Progressive files written byte by byte: every block flat, so that each scan's data is a few
/// Huffman codes of one-symbol tables; DC interleaved or not, refinements, restart markers.
private let jpegScanSeeds: [(name: String, data: Data)] = [
    ("gray-refined.jpg", syntheticProgressive(components: [0x11], interleavedDC: false, restartInterval: 0)),
    ("ycc420.jpg", syntheticProgressive(components: [0x22, 0x11, 0x11], interleavedDC: true, restartInterval: 0)),
    ("ycc444-restarts.jpg", syntheticProgressive(components: [0x11, 0x11, 0x11], interleavedDC: true, restartInterval: 1)),
]

/// A 16×16 progressive JPEG of flat blocks with components of the given sampling bytes.
private func syntheticProgressive(components: [UInt8], interleavedDC: Bool, restartInterval: Int) -> Data {
    var b: [UInt8] = [0xFF, 0xD8, 0xFF, 0xDB, 0x00, 0x43, 0x00] + Array(repeating: 2, count: 64)
    b += [0xFF, 0xC2, 0x00, UInt8(8 + 3 * components.count), 8, 0, 16, 0, 16, UInt8(components.count)]
    for (index, sampling) in components.enumerated() { b += [UInt8(index + 1), sampling, 0] }
    for tableClass: UInt8 in [0x00, 0x10] {
        b += [0xFF, 0xC4, 0x00, 0x14, tableClass, 1] + Array(repeating: 0, count: 15) + [0]
    }
    if restartInterval > 0 { b += [0xFF, 0xDD, 0x00, 0x04, 0x00, UInt8(restartInterval)] }
    // Each scan's data: "0" codes padded with ones, and a restart marker between intervals.
    let data: [UInt8] = restartInterval > 0 ? [0x7F, 0xFF, 0xD0, 0x7F, 0xFF, 0xD1, 0x7F, 0xFF, 0xD2, 0x7F] : [0x00, 0x7F]
    func sos(_ ids: [Int], _ ss: Int, _ se: Int, _ ah: Int, _ al: Int) {
        b += [0xFF, 0xDA, 0x00, UInt8(6 + 2 * ids.count), UInt8(ids.count)]
        for id in ids { b += [UInt8(id + 1), 0x00] }
        b += [UInt8(ss), UInt8(se), UInt8(ah << 4 | al)] + data
    }
    let all = Array(components.indices)
    if interleavedDC { sos(all, 0, 0, 0, 1) } else { for c in all { sos([c], 0, 0, 0, 1) } }
    for c in all { sos([c], 1, 5, 0, 1) }
    for c in all { sos([c], 6, 63, 0, 0) }
    if interleavedDC { sos(all, 0, 0, 1, 0) } else { for c in all { sos([c], 0, 0, 1, 0) } }
    for c in all { sos([c], 1, 5, 1, 0) }
    b += [0xFF, 0xD9]
    return Data(b)
}
