import Foundation
import WebImage

/// What the pipeline demo serves and requests: distinct good images (some of them "popular",
/// requested ``repeats`` times at once), three broken URLs, and the request list of one pass.
struct DemoGallery {
    /// One served image.
    struct Item {
        /// The URL path on the demo server (`/gallery/007-basn2c08.png`).
        var path: String
        var data: Data
        var contentType: String
    }

    /// A URL that must fail, and why.
    struct Broken {
        var path: String
        /// What it is, for the report ("404", "HTML body", "truncated PNG").
        var label: String
        /// The scripted response; `nil` for an unrouted path (the server answers 404).
        var response: DemoServer.Response?
    }

    /// How often each popular URL is requested in a pass.
    static let repeats = 5

    /// Where the images came from, for the report.
    var source: String
    /// Distinct good URLs: the popular ones first (``popularCount`` of them), then the rest.
    var items: [Item]
    var popularCount: Int
    var broken: [Broken]
    /// The paths requested in one pass, in order: every good item once, each popular item
    /// ``repeats`` times, every broken URL once; shuffled with a fixed seed.
    var requestPaths: [String]

    /// The popular items.
    var popular: ArraySlice<Item> { items.prefix(popularCount) }

    /// A gallery for `count` requests per pass: corpus images when `corpusRoot` is given and
    /// has enough decodable small files, else images generated with the registered encoders.
    static func make(count: Int, corpusRoot: URL?, coders: CodersManager = .shared) throws -> DemoGallery {
        let brokenCount = 3
        let popularCount = max(2, (count - brokenCount) / 20)
        let distinct = count - brokenCount - popularCount * (repeats - 1)
        var source: String
        var samples: [Item]
        if let corpusRoot, let picked = corpusSamples(root: corpusRoot, limit: min(distinct, 240), coders: coders), !picked.isEmpty {
            samples = picked
            source = "test corpus at \(corpusRoot.path) (\(picked.count) files\(picked.count < distinct ? ", repeated under distinct URLs" : ""))"
        } else {
            samples = try generatedSamples(limit: min(distinct, 64), coders: coders)
            source = "generated with the registered encoders (\(samples.count) images\(samples.count < distinct ? ", repeated under distinct URLs" : "")); no corpus found"
        }
        guard !samples.isEmpty else {
            throw WebImageError.encodingFailed(reason: "no encoder is registered, and there is no corpus: nothing to serve")
        }
        var items: [Item] = []
        for index in 0..<distinct {
            var item = samples[index % samples.count]
            item.path = String(format: "/gallery/%03d-", index + 1) + item.path
            items.append(item)
        }
        let broken = try brokenURLs(coders: coders, samples: samples)

        var paths: [String] = []
        for (index, item) in items.enumerated() {
            paths += Array(repeating: item.path, count: index < popularCount ? repeats : 1)
        }
        paths += broken.map(\.path)
        var random = DemoShuffle(seed: 0xD3_40)
        paths.shuffle(using: &random)
        return DemoGallery(source: source, items: items, popularCount: popularCount, broken: broken, requestPaths: paths)
    }

    /// Routes every item and broken URL on `server`; the popular items wait for `gate`.
    func install(on server: DemoServer, popularGate: DemoServer.Gate) {
        for (index, item) in items.enumerated() {
            var response = DemoServer.Response.ok(item.data, contentType: item.contentType)
            if index < popularCount { response.gate = popularGate }
            server.route(item.path, response)
        }
        for entry in broken {
            if let response = entry.response { server.route(entry.path, response) }
        }
    }

    // MARK: - Corpus

    /// Small files the manifest says decode, in JPEG, PNG, GIF, WebP, AVIF and HEIF, taken round-robin
    /// by format (sorted by path, so the choice is stable), each checked to decode here.
    static func corpusSamples(root: URL, limit: Int, coders: CodersManager) -> [Item]? {
        guard let text = try? String(contentsOf: root.appendingPathComponent("manifest.tsv"), encoding: .utf8) else {
            return nil
        }
        let formats = ["JPEG", "PNG", "GIF", "WEBP", "AVIF", "HEIF"]
        var byFormat: [String: [String]] = [:]
        for line in text.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 7, fields[6] == "decodes", formats.contains(fields[2]),
                let size = Int(fields[1]), size > 0, size <= 64 * 1024,
                !fields[0].hasPrefix("reference-renderings/")
            else { continue }
            let dims = fields[3].split(separator: "x").compactMap { Int($0.prefix { $0.isNumber }) }
            guard dims.count == 2, (16...1024).contains(dims[0]), (16...1024).contains(dims[1]) else { continue }
            if let frames = Int(fields[4]), frames > 48 { continue }
            byFormat[fields[2], default: []].append(fields[0])
        }
        var queues = formats.map { (byFormat[$0] ?? []).sorted()[...] }
        var picked: [Item] = []
        var progress = true
        while picked.count < limit, progress {
            progress = false
            for index in queues.indices where picked.count < limit {
                guard let path = queues[index].popFirst() else { continue }
                progress = true
                guard let data = try? Data(contentsOf: root.appendingPathComponent(path)),
                    coders.canDecode(data), (try? coders.decode(data, options: .default)) != nil
                else { continue }
                let name = OutputFileNames.sanitizedParts(of: (path as NSString).lastPathComponent)
                let fileName = name.ext.map { "\(name.base).\($0)" } ?? name.base
                picked.append(Item(path: fileName, data: data, contentType: mimeType(ImageFormat.detect(data))))
            }
        }
        return picked.isEmpty ? nil : picked
    }

    // MARK: - Generated

    /// `limit` distinct pictures (hue, layout and size vary), encoded in turn as JPEG, PNG
    /// (with transparent corners), WebP and GIF when those encoders are registered; every
    /// seventh is a four-frame animation (GIF or WebP).
    static func generatedSamples(limit: Int, coders: CodersManager) throws -> [Item] {
        let stills = [ImageFormat.jpeg, .png, .webp, .gif].filter(coders.canEncode)
        let animated = [ImageFormat.gif, .webp].filter(coders.canEncode)
        guard !stills.isEmpty else { return [] }
        let sizes = [(160, 120), (120, 160), (200, 100), (128, 128), (180, 135)]
        var items: [Item] = []
        for index in 0..<limit {
            let (width, height) = sizes[index % sizes.count]
            let image: Image
            let format: ImageFormat
            if index % 7 == 6, !animated.isEmpty {
                let frames = (0..<4).map { frame in
                    ImageFrame(pixels: picture(width: width, height: height, index: index, frame: frame, alpha: false), duration: 0.15)
                }
                image = Image(frames: frames, loopCount: 0, hasAlpha: false)
                format = animated[index % animated.count]
            } else {
                format = stills[index % stills.count]
                let alpha = format == .png || format == .webp
                image = Image(pixels: picture(width: width, height: height, index: index, frame: 0, alpha: alpha), hasAlpha: alpha)
            }
            let data = try coders.encode(image, format: format, options: .default)
            let kind = image.isAnimated ? "animation" : "picture"
            items.append(Item(path: "\(kind).\(format.fileExtension)", data: data, contentType: mimeType(format)))
        }
        return items
    }

    /// A picture: a two-hue diagonal gradient with a disc and a bar whose places depend on
    /// `index` and `frame`; with `alpha`, the corners outside a rounded rectangle are transparent.
    static func picture(width: Int, height: Int, index: Int, frame: Int, alpha: Bool) -> PixelBuffer {
        let hue = Double((index * 47) % 360)
        let (r0, g0, b0) = rgb(hue: hue)
        let (r1, g1, b1) = rgb(hue: hue + 150)
        let cx = width / 4 + (index * 13 + frame * 9) % max(1, width / 2)
        let cy = height / 3 + (index * 7) % max(1, height / 3)
        let radius = min(width, height) / 5
        let bar = (index * 11 + frame * 6) % max(1, height - 8)
        let corner = min(width, height) / 6
        return PixelBuffer.make(width: width, height: height) { out in
            for y in 0..<height {
                for x in 0..<width {
                    let t = Double(x + y) / Double(max(1, width + height - 2))
                    var r = r0 * (1 - t) + r1 * t
                    var g = g0 * (1 - t) + g1 * t
                    var b = b0 * (1 - t) + b1 * t
                    let dx = x - cx
                    let dy = y - cy
                    if dx * dx + dy * dy <= radius * radius { (r, g, b) = (1 - r * 0.8, 1 - g * 0.8, 1 - b * 0.8) }
                    if y >= bar, y < bar + 6 { (r, g, b) = (0.95, 0.95, 0.95) }
                    var a = 1.0
                    if alpha {
                        let ex = max(0, max(corner - x, x - (width - 1 - corner)))
                        let ey = max(0, max(corner - y, y - (height - 1 - corner)))
                        if ex * ex + ey * ey > corner * corner { a = 0 }
                    }
                    let i = (y * width + x) * 4
                    out[i] = UInt8(max(0, min(255, r * 255)))
                    out[i + 1] = UInt8(max(0, min(255, g * 255)))
                    out[i + 2] = UInt8(max(0, min(255, b * 255)))
                    out[i + 3] = UInt8(a * 255)
                }
            }
        }
    }

    /// A saturated colour for `hue` degrees, components 0…1.
    static func rgb(hue: Double) -> (Double, Double, Double) {
        let h = (hue.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) / 60
        let x = 1 - abs(h.truncatingRemainder(dividingBy: 2) - 1)
        let (r, g, b): (Double, Double, Double) =
            switch Int(h) {
            case 0: (1, x, 0)
            case 1: (x, 1, 0)
            case 2: (0, 1, x)
            case 3: (0, x, 1)
            case 4: (x, 0, 1)
            default: (1, 0, x)
            }
        return (0.15 + 0.7 * r, 0.15 + 0.7 * g, 0.15 + 0.7 * b)
    }

    // MARK: - Broken

    /// A path nobody routes (404), an HTML page served as `image/jpeg`, and the first part of
    /// a PNG (a complete HTTP response whose image is cut short), checked to fail decoding.
    static func brokenURLs(coders: CodersManager, samples: [Item]) throws -> [Broken] {
        let html = Data("<!DOCTYPE html><html><body><h1>Not here</h1></body></html>\n".utf8)
        var png = try? coders.encode(
            Image(pixels: picture(width: 64, height: 64, index: 3, frame: 0, alpha: false), hasAlpha: false),
            format: .png, options: .default)
        if png == nil { png = samples.first { ImageFormat.detect($0.data) == .png }?.data }
        var truncated = Data(png.map { $0.prefix($0.count / 2) } ?? Data())
        if (try? coders.decode(truncated, options: .default)) != nil {
            // Lenient decoder: keep only the signature and part of the header.
            truncated = Data(truncated.prefix(24))
        }
        return [
            Broken(path: "/broken/missing.png", label: "404 Not Found", response: nil),
            Broken(path: "/broken/page.jpg", label: "HTML body as image/jpeg", response: .ok(html, contentType: "image/jpeg")),
            Broken(path: "/broken/truncated.png", label: "truncated PNG", response: .ok(truncated, contentType: "image/png")),
        ]
    }

    /// The MIME type served for `format`.
    static func mimeType(_ format: ImageFormat) -> String {
        switch format {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        default: "application/octet-stream"
        }
    }
}

/// The generator that shuffles the demo's request list: SplitMix64 with a fixed seed, so every
/// run (on every machine) requests in the same order.
struct DemoShuffle: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
