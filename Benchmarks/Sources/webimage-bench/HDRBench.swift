import Foundation
import WebImageCodecs
import WebImageCore

/// `webimage-bench hdr-thumbnail WITH WITHOUT ITERATIONS BOX OUTDIR`: the cost of a gain map on
/// the thumbnail path (SPEC H-3). The same JPEG with its gain map (`WITH`) and without it
/// (`WITHOUT`) are each decoded to fit BOX×BOX and encoded as JPEG q80 (the map written back),
/// alternately, ITERATIONS times. Prints each run's process CPU milliseconds as
/// `with_cpu_ms=a,b,… without_cpu_ms=…` and writes the last outputs to OUTDIR/ours-map.jpg and
/// OUTDIR/ours-plain.jpg for the quality comparison (scripts/bench-hdr.py).
enum HDRBench {
    static func run(with: String, without: String, iterations: Int, box: Int, outDirectory: String) throws {
        let inputs = [try Data(contentsOf: URL(fileURLWithPath: with)), try Data(contentsOf: URL(fileURLWithPath: without))]
        let options = DecodeOptions(thumbnailPixelSize: PixelSize(width: box, height: box))
        let encode = EncodeOptions(quality: 0.8)
        let coders = CodersManager.shared
        var outputs = [Data(), Data()]
        var samples: [[Double]] = [[], []]
        func once(_ index: Int) throws {
            let image = try coders.decode(inputs[index], options: options)
            if index == 0, image.gainMap == nil {
                throw WebImageError.badImageData(reason: "the gain-map input decoded without its map: \(String(describing: image.gainMapIssue))")
            }
            outputs[index] = try coders.encode(image, format: .jpeg, options: encode)
        }
        try once(0)
        try once(1)
        for _ in 0..<iterations {
            for index in 0..<2 {
                let start = clockMilliseconds(CLOCK_PROCESS_CPUTIME_ID)
                try once(index)
                samples[index].append(clockMilliseconds(CLOCK_PROCESS_CPUTIME_ID) - start)
            }
        }
        let folder = URL(fileURLWithPath: outDirectory, isDirectory: true)
        try outputs[0].write(to: folder.appendingPathComponent("ours-map.jpg"))
        try outputs[1].write(to: folder.appendingPathComponent("ours-plain.jpg"))
        func list(_ values: [Double]) -> String { values.map { String(format: "%.3f", $0) }.joined(separator: ",") }
        print("with_cpu_ms=\(list(samples[0])) without_cpu_ms=\(list(samples[1]))")
    }
}
