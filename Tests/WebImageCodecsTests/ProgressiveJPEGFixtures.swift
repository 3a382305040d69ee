import CJPEGReduced
import CTurboJPEG
import Foundation
import Testing
import WebImageCore
import WebImageTesting

@testable import WebImageCodecs

/// Progressive JPEGs made at test time with libjpeg-turbo's own tools (`cjpeg`, `jpegtran`,
/// from Debian's libjpeg-turbo-progs, which `make setup` installs), and TurboJPEG's reduced decode
/// as the reference.
enum ProgressiveJPEGFixtures {
    /// The odd-size cases both scales check, made from `input` by cjpeg: per sampling, the
    /// default progressive script, a mozjpeg-style script with restart markers and deep DC
    /// refinement; then grey with restarts, RGB and RGB 4:2:0. Names for the failure messages.
    static func oddSizeFiles(_ input: Data, samplings: [String]) throws -> [(String, Data)] {
        var files: [(String, Data)] = []
        for sampling in samplings {
            files.append(("\(sampling)", try cjpeg(["-quality", "90", "-progressive", "-sample", sampling], input: input)))
            files.append((
                "\(sampling) mozjpeg-style restart 1B",
                try cjpeg(["-quality", "95", "-sample", sampling, "-restart", "1B"], scans: colorScripts["mozjpeg-style"], input: input)
            ))
            files.append((
                "\(sampling) deep-dc-refinement",
                try cjpeg(["-quality", "75", "-sample", sampling], scans: colorScripts["deep-dc-refinement"], input: input)
            ))
        }
        files.append(("grey", try cjpeg(["-quality", "90", "-progressive", "-grayscale", "-restart", "1"], input: input)))
        files.append(("RGB", try cjpeg(["-quality", "90", "-progressive", "-rgb"], input: input)))
        files.append(("RGB 4:2:0", try cjpeg(["-quality", "90", "-progressive", "-rgb", "-sample", "2x2,1x1,1x1"], input: input)))
        return files
    }

    /// A 517×389 picture (no side a multiple of 8 or 16) with detail at every frequency:
    /// gradients, a sharp-edged disc, fine stripes and seeded noise, as a binary PPM.
    static let ppm: Data = ppm(width: 517, height: 389)

    /// The same kind of picture at any size, as a binary PPM.
    static func ppm(width: Int, height: Int) -> Data {
        var random = SeededRandom(seed: 35)
        var bytes = Array("P6\n\(width) \(height)\n255\n".utf8)
        bytes.reserveCapacity(bytes.count + width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let dx = x - 300, dy = y - 180
                let inDisc = dx * dx + dy * dy < 110 * 110
                let stripes = (x / 3 + y / 5) % 2 == 0 ? 40 : 0
                let noise = random.below(48)
                let r = inDisc ? 230 - noise : x * 200 / width + noise
                let g = (y * 255 / height + stripes + noise / 2) % 256
                let b = inDisc ? 30 + stripes : 255 - x * 180 / width - noise
                bytes += [UInt8(clamping: r), UInt8(clamping: g), UInt8(clamping: b)]
            }
        }
        return Data(bytes)
    }

    /// Runs `tool` (in /usr/bin) with `arguments`, `{in}` and `{scans}` replaced by files
    /// holding `input` and `scans`; returns its standard output.
    static func run(_ tool: String, _ arguments: [String], input: Data, scans: String? = nil) throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dcscan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputURL = directory.appendingPathComponent("in")
        let scansURL = directory.appendingPathComponent("scans.txt")
        let outputURL = directory.appendingPathComponent("out.jpg")
        try input.write(to: inputURL)
        if let scans { try Data(scans.utf8).write(to: scansURL) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/\(tool)")
        process.arguments =
            arguments.map { $0 == "{in}" ? inputURL.path : $0 == "{scans}" ? scansURL.path : $0 }
            + ["-outfile", outputURL.path, inputURL.path]
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/\(tool)"),
            "\(tool) is missing: make setup installs libjpeg-turbo-progs")
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(tool) \(arguments) failed")
        return try Data(contentsOf: outputURL)
    }

    /// `cjpeg` over ``ppm`` with `arguments` (and a `-scans` script when given).
    static func cjpeg(_ arguments: [String], scans: String? = nil, input: Data = ppm) throws -> Data {
        try run("cjpeg", arguments + (scans == nil ? [] : ["-scans", "{scans}"]), input: input, scans: scans)
    }

    /// `jpegtran` rewriting `jpeg` with the scan script `scans` (lossless: same coefficients).
    static func jpegtran(_ jpeg: Data, scans: String) throws -> Data {
        try run("jpegtran", ["-scans", "{scans}"], input: jpeg, scans: scans)
    }

    /// TurboJPEG's 1/8 decode of `data` into RGBA (as the normal path runs it, stopping at any
    /// warning), or `nil` when it fails.
    static func turboJPEGEighth(_ data: Data, format: TJPF = TJPF_RGBA) -> [UInt8]? {
        turboJPEG(data, denominator: 8, format: format)
    }

    /// TurboJPEG's decode of `data` at the size 1/`denominator` gives (TurboJPEG picks its scale
    /// from that size), into RGBA by default, stopping at any warning; `nil` when it fails.
    static func turboJPEG(_ data: Data, denominator: Int, format: TJPF = TJPF_RGBA) -> [UInt8]? {
        data.withUnsafeBytes { b -> [UInt8]? in
            guard let handle = tjInitDecompress(), let base = b.baseAddress else { return nil }
            defer { tjDestroy(handle) }
            var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
            let source = base.assumingMemoryBound(to: UInt8.self)
            guard tjDecompressHeader3(handle, source, UInt(b.count), &width, &height, &subsampling, &colorspace) == 0
            else { return nil }
            let w = (Int(width) + denominator - 1) / denominator, h = (Int(height) + denominator - 1) / denominator
            var out = [UInt8](repeating: 0, count: w * h * 4)
            let rc = out.withUnsafeMutableBufferPointer { o in
                tjDecompress2(
                    handle, source, UInt(b.count), o.baseAddress, Int32(w), Int32(w * 4), Int32(h), Int32(format.rawValue),
                    Int32(TJFLAG_LIMITSCANS | TJFLAG_STOPONWARNING))
            }
            return rc == 0 ? out : nil
        }
    }

    /// Scan scripts in cjpeg's `-scans` syntax for three components (Y, Cb, Cr).
    static let colorScripts: [String: String] = [
        // Spectral selection only: no successive approximation.
        "spectral-selection": """
            0,1,2: 0-0, 0, 0;
            0: 1-5, 0, 0;
            2: 1-63, 0, 0;
            1: 1-63, 0, 0;
            0: 6-63, 0, 0;
            """,
        // mozjpeg's shape: one DC scan per component, luma split at 8 with successive
        // approximation, chroma split at 8 without.
        "mozjpeg-style": """
            0: 0-0, 0, 0;
            1: 0-0, 0, 0;
            2: 0-0, 0, 0;
            0: 1-8, 0, 2;
            0: 9-63, 0, 2;
            0: 1-63, 2, 1;
            0: 1-63, 1, 0;
            1: 1-8, 0, 0;
            1: 9-63, 0, 0;
            2: 1-8, 0, 0;
            2: 9-63, 0, 0;
            """,
        // DC in three steps (Al 2, 1, 0), the refinements interleaved with AC scans, and a
        // per-component last DC refinement.
        "deep-dc-refinement": """
            0,1,2: 0-0, 0, 2;
            0: 1-2, 0, 1;
            0,1,2: 0-0, 2, 1;
            1: 1-63, 0, 1;
            2: 1-63, 0, 1;
            0: 3-63, 0, 1;
            0: 0-0, 1, 0;
            1: 0-0, 1, 0;
            2: 0-0, 1, 0;
            0: 1-63, 1, 0;
            1: 1-63, 1, 0;
            2: 1-63, 1, 0;
            """,
        // Many narrow luma bands.
        "narrow-bands": """
            0,1,2: 0-0, 0, 0;
            0: 1-1, 0, 0;
            0: 2-2, 0, 0;
            0: 3-5, 0, 0;
            0: 6-9, 0, 0;
            0: 10-20, 0, 0;
            0: 21-40, 0, 0;
            0: 41-63, 0, 0;
            1: 1-63, 0, 0;
            2: 1-63, 0, 0;
            """,
    ]

    /// Our own decoder (`wi_jpeg_reduced_decode`) at 1/8 run directly on `data`: its result code
    /// and the pixels (RGBA, or CMYK when `cmyk`).
    static func ownEighth(_ data: Data, cmyk: Bool = false, acceptingPrefix: Bool = false) -> (code: Int, pixels: [UInt8]) {
        own(data, denominator: 8, cmyk: cmyk, acceptingPrefix: acceptingPrefix)
    }

    /// Our own decoder at 1/`denominator` (8 or 4) run directly on `data`.
    static func own(_ data: Data, denominator: Int, cmyk: Bool = false, acceptingPrefix: Bool = false) -> (code: Int, pixels: [UInt8]) {
        data.withUnsafeBytes { b -> (Int, [UInt8]) in
            var scanner = JPEGMarkerScanner()
            scanner.scan(b, stopAtFirstScan: true)
            guard let frame = scanner.frame, let base = b.baseAddress else { return (-1, []) }
            let width = (frame.width + denominator - 1) / denominator, height = (frame.height + denominator - 1) / denominator
            var out = [UInt8](repeating: 0, count: width * height * 4)
            let code = out.withUnsafeMutableBufferPointer { o in
                wi_jpeg_reduced_decode(
                    base.assumingMemoryBound(to: UInt8.self), b.count, Int32(denominator), acceptingPrefix ? 1 : 0, cmyk ? 1 : 0,
                    o.baseAddress, width * 4, UInt32(width), UInt32(height), 1 << 28)
            }
            return (Int(code), out)
        }
    }

    /// A progressive CMYK JPEG written by TurboJPEG (stored as YCCK with an Adobe marker).
    static func ycck(width: Int, height: Int, subsampling: TJSAMP) throws -> Data {
        var random = SeededRandom(seed: 4)
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for index in pixels.indices { pixels[index] = UInt8(((index / 4 % width) * 3 + random.below(40)) % 256) }
        let handle = try #require(tjInitCompress())
        defer { tjDestroy(handle) }
        var jpeg: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let rc = tjCompress2(
            handle, pixels, Int32(width), 0, Int32(height), Int32(TJPF_CMYK.rawValue), &jpeg, &size,
            Int32(subsampling.rawValue), 90, Int32(TJFLAG_PROGRESSIVE))
        defer { tjFree(jpeg) }
        try #require(rc == 0 && jpeg != nil)
        return Data(bytes: jpeg!, count: Int(size))
    }

    /// The generated corpus: name → progressive JPEG.
    static func generated() throws -> [(name: String, data: Data)] {
        var files: [(String, Data)] = []
        let samplings = ["2x2", "1x1", "2x1", "1x2", "4x1"]
        for sampling in samplings {
            files.append(("default \(sampling)", try cjpeg(["-quality", "85", "-progressive", "-sample", sampling])))
        }
        files.append(("default optimize q60", try cjpeg(["-quality", "60", "-progressive", "-optimize"])))
        files.append(("default restart 1 row", try cjpeg(["-quality", "85", "-progressive", "-restart", "1"])))
        files.append(("default restart 3 blocks", try cjpeg(["-quality", "85", "-progressive", "-restart", "3B"])))
        files.append(("grayscale", try cjpeg(["-quality", "90", "-progressive", "-grayscale"])))
        files.append(("grayscale restart", try cjpeg(["-quality", "90", "-progressive", "-grayscale", "-restart", "2B"])))
        for (name, script) in colorScripts.sorted(by: { $0.key < $1.key }) {
            files.append(("cjpeg \(name)", try cjpeg(["-quality", "85", "-sample", "2x2"], scans: script)))
            files.append(("cjpeg \(name) 4:4:4", try cjpeg(["-quality", "85", "-sample", "1x1"], scans: script)))
        }
        let baseline = try cjpeg(["-quality", "80"])
        for (name, script) in colorScripts.sorted(by: { $0.key < $1.key }) {
            files.append(("jpegtran \(name)", try jpegtran(baseline, scans: script)))
        }
        return files
    }
}
