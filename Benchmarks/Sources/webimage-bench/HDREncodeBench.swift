import Foundation
import WebImageCodecs
import WebImageCore

/// `webimage-bench hdr-encode RAW WIDTH HEIGHT SCALE CHANNELS QUALITY ITERATIONS OUTDIR`: the cost
/// of writing a gain-map JPEG computed from HDR pixels (SPEC H-5, ``EncodeOptions/gainMap``).
/// RAW holds WIDTH×HEIGHT RGBA16 samples, host-endian, PQ-coded with BT.709 primaries (CICP 1/16,
/// what `DecodeOptions.dynamicRange = .high` hands out for a gain-map source). Each channel count
/// in CHANNELS (a comma list of 1 and 3) is encoded at map scale 1/SCALE and QUALITY (percent),
/// in turn, ITERATIONS times. Prints each run's process CPU milliseconds as
/// `c1_cpu_ms=a,b,… c3_cpu_ms=…` and writes the last outputs to OUTDIR/ours-encode-cN.jpg.
enum HDREncodeBench {
    static func run(
        raw: String, width: Int, height: Int, scale: Int, channels: [Int], quality: Int, iterations: Int,
        outDirectory: String
    ) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        guard width > 0, height > 0, data.count == width * height * 8 else {
            throw WebImageError.badImageData(reason: "\(raw) holds \(data.count) bytes, not \(width)×\(height) RGBA16 pixels")
        }
        let pixels = PixelBuffer(width: width, height: height, format: .rgba16, bytes: [UInt8](data))
        let pq = ColorProfile(kind: .cicp(CICP(colorPrimaries: 1, transferCharacteristics: 16, matrixCoefficients: 0, fullRange: true)))
        let image = Image(frames: [ImageFrame(pixels: pixels)], hasAlpha: false, colorProfile: pq, gainMap: nil)
        let coders = CodersManager.shared
        var outputs = [Data](repeating: Data(), count: channels.count)
        var samples = [[Double]](repeating: [], count: channels.count)
        func once(_ index: Int) throws {
            var options = EncodeOptions(quality: Double(quality) / 100)
            options.gainMap = GainMapEncodeSettings(scale: scale, channelCount: channels[index])
            outputs[index] = try coders.encode(image, format: .jpeg, options: options)
        }
        for index in channels.indices { try once(index) }
        for _ in 0..<iterations {
            for index in channels.indices {
                let start = clockMilliseconds(CLOCK_PROCESS_CPUTIME_ID)
                try once(index)
                samples[index].append(clockMilliseconds(CLOCK_PROCESS_CPUTIME_ID) - start)
            }
        }
        let folder = URL(fileURLWithPath: outDirectory, isDirectory: true)
        func list(_ values: [Double]) -> String { values.map { String(format: "%.3f", $0) }.joined(separator: ",") }
        var fields: [String] = []
        for (index, count) in channels.enumerated() {
            try outputs[index].write(to: folder.appendingPathComponent("ours-encode-c\(count).jpg"))
            fields.append("c\(count)_cpu_ms=\(list(samples[index]))")
        }
        print(fields.joined(separator: " "))
    }
}

/// `webimage-bench hdr-bitmap RAW WIDTH HEIGHT ITERATIONS`: the cost of laying out RGBA16 PQ
/// pixels (RAW, as for `hdr-encode`) for Core Graphics (``HDRBitmap``, what the Apple adapters'
/// `makeCGImage` does before calling Core Graphics): BT.709 primaries, converted to BT.2020, and
/// the same samples described as BT.2020, kept. Prints the median process CPU milliseconds of
/// each as `bt709_cpu_ms=… bt2020_cpu_ms=…`.
enum HDRBitmapBench {
    static func run(raw: String, width: Int, height: Int, iterations: Int) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        guard width > 0, height > 0, data.count == width * height * 8 else {
            throw WebImageError.badImageData(reason: "\(raw) holds \(data.count) bytes, not \(width)×\(height) RGBA16 pixels")
        }
        let pixels = PixelBuffer(width: width, height: height, format: .rgba16, bytes: [UInt8](data))
        let profiles = [1, 9].map { primaries in
            ColorProfile(kind: .cicp(CICP(colorPrimaries: UInt16(primaries), transferCharacteristics: 16, matrixCoefficients: 0, fullRange: true)))
        }
        var samples: [[Double]] = [[], []]
        var checksum = 0
        for index in 0..<2 { checksum &+= HDRBitmap(pixels: pixels, colorProfile: profiles[index])?.bytes.count ?? 0 }
        for _ in 0..<iterations {
            for index in 0..<2 {
                let start = clockMilliseconds(CLOCK_PROCESS_CPUTIME_ID)
                let bitmap = HDRBitmap(pixels: pixels, colorProfile: profiles[index])
                samples[index].append(clockMilliseconds(CLOCK_PROCESS_CPUTIME_ID) - start)
                if let bitmap { checksum &+= Int(bitmap.bytes[bitmap.bytes.count / 2]) }
            }
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        print(String(format: "bt709_cpu_ms=%.3f bt2020_cpu_ms=%.3f checksum=%d", median(samples[0]), median(samples[1]), checksum))
    }
}
