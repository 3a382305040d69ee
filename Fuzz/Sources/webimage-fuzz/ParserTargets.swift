// Parsers of bytes that arrive with images or from object storage: colour profiles (and the
// transforms built from them), placeholder strings, and S3's answers, URLs and shared files.
import Foundation
@testable import WebImage
@testable import WebImageCodecs
import WebImageCore

extension FuzzTarget {
    /// Any bytes as an ICC profile: read, turned into a transform (LittleCMS or the library's
    /// matrix/TRC path) and applied to RGBA and CMYK pixels.
    static let colorProfileTarget = FuzzTarget(
        name: "color-profile",
        summary: "ColorProfile(icc:) and ICCProfileHeader, the transform built for it (LittleCMS or MatrixShaperTransform), applied to RGBA and CMYK pixels",
        maxLength: 65536, dictionary: "icc.dict", usesImageCorpus: false,
        seeds: { iccSeeds },
        run: { data in
            guard let profile = ColorProfile(icc: data) else { return }
            _ = profile.name
            // Built here rather than through the shared transform cache, so that nothing of one
            // input outlives it and LeakSanitizer judges every input on its own.
            let transform = ColorTransform.make(for: profile)
            let pixels = PixelBuffer(width: 8, height: 2, bytes: (0..<64).map { UInt8(truncatingIfNeeded: $0 * 37) })
            let converted = ColorConversion.convert(pixels, transform)
            if converted.width != 8 || converted.height != 2 || converted.bytes.count != 64 {
                FuzzTarget.finding("the converted buffer is \(converted.width)×\(converted.height), \(converted.bytes.count) bytes")
            }
            for index in stride(from: 3, to: 64, by: 4) where converted.bytes[index] != pixels.bytes[index] {
                FuzzTarget.finding("alpha changed by a colour conversion")
            }
            if case .lcmsCMYK(let plain, let inverted) = transform {
                var cmyk = (0..<64).map { UInt8(truncatingIfNeeded: $0 * 53) }
                cmyk.withUnsafeMutableBytes { raw in
                    guard let base = raw.baseAddress else { return }
                    plain.apply(base, base, count: 16)
                    inverted.apply(base, base, count: 16)
                }
            }
        })

    /// Any bytes as a BlurHash or ThumbHash string (and ThumbHash's raw bytes), decoded back
    /// into a small image.
    static let placeholderTarget = FuzzTarget(
        name: "placeholder",
        summary: "BlurHash and ThumbHash decoders (strings from a client or a cache) into small images",
        maxLength: 4096, dictionary: nil, usesImageCorpus: false,
        seeds: { placeholderSeeds.enumerated().map { ("hash-\($0.offset).txt", Data($0.element.utf8)) } },
        run: { data in
            let text = String(decoding: data, as: UTF8.self)
            _ = ImagePlaceholder.blurHashComponents(text)
            if let image = try? ImagePlaceholder.image(fromBlurHash: text, width: 16, height: 12, punch: 1) {
                if image.width != 16 || image.height != 12 { FuzzTarget.finding("a BlurHash decoded to \(image.width)×\(image.height), not 16×12") }
            }
            for image in [try? ImagePlaceholder.image(fromThumbHash: text), try? ImagePlaceholder.image(fromThumbHashBytes: data)] {
                if let image, image.width > 32 || image.height > 32 {
                    FuzzTarget.finding("a ThumbHash decoded to \(image.width)×\(image.height), larger than 32 pixels")
                }
            }
        })

    /// Any bytes as an `s3://` URL mapped to the endpoint and signed, as an S3 error body, and
    /// as an AWS shared credentials/config file. The mapped URL never leaves the endpoint.
    static let s3Target = FuzzTarget(
        name: "s3",
        summary: "S3ObjectLocation from an s3:// URL, S3Configuration.requestURL (never another host than the endpoint's), SigV4 signing, S3ErrorResponse and AWSSharedConfigFile",
        maxLength: 4096, dictionary: "urls.dict", usesImageCorpus: false,
        seeds: { s3Seeds.enumerated().map { ("s3-\($0.offset).txt", Data($0.element.utf8)) } },
        run: { data in
            let text = String(decoding: data, as: UTF8.self)
            _ = S3ErrorResponse(body: data)
            _ = AWSSharedConfigFile(text: text)
            guard let url = URL(string: text), let location = try? S3ObjectLocation(url) else { return }
            for (configuration, expectedHost) in [
                (fuzzS3PathStyle, "127.0.0.1"), (fuzzS3Virtual, "\(location.bucket).s3.eu-west-1.amazonaws.com"),
            ] {
                guard let mapped = try? configuration.requestURL(for: location) else { continue }
                // Virtual-host style only for names that are host labels; else path style on
                // the regional endpoint.
                let host = mapped.host ?? ""
                let allowed = [expectedHost, URL(string: "https://s3.eu-west-1.amazonaws.com")!.host!]
                if !allowed.contains(host) { FuzzTarget.finding("s3 URL \(text.debugDescription) mapped to host \(host.debugDescription)") }
                if configuration.endpoint != nil, mapped.port != 9000 { FuzzTarget.finding("s3 URL \(text.debugDescription) mapped to port \(String(describing: mapped.port))") }
                // The bucket checked is the bucket read: no segment a normalising proxy or
                // gateway would resolve, and path style names the bucket first.
                let segments = (URLComponents(url: mapped, resolvingAgainstBaseURL: false)?.percentEncodedPath ?? "")
                    .split(separator: "/", omittingEmptySubsequences: false).dropFirst()
                    .map { $0.removingPercentEncoding ?? String($0) }
                if segments.contains(where: { $0 == "." || $0 == ".." }) { FuzzTarget.finding("s3 URL \(text.debugDescription) mapped to a dot segment: \(mapped)") }
                if host == "127.0.0.1", segments.first != location.bucket { FuzzTarget.finding("s3 URL \(text.debugDescription) mapped to another bucket: \(mapped)") }
                let request = ImageDownloadRequest(url: mapped)
                _ = try? S3RequestSigner(configuration, now: { Date(timeIntervalSince1970: 1_800_000_000) }).modify(request)
            }
        })

    static let fuzzS3PathStyle = S3Configuration(
        endpoint: URL(string: "http://127.0.0.1:9000"), credentials: AWSCredentials(accessKeyID: "AKID", secretAccessKey: "secret"))
    static let fuzzS3Virtual = S3Configuration(
        region: "eu-west-1", pathStyle: false, credentials: AWSCredentials(accessKeyID: "AKID", secretAccessKey: "secret", sessionToken: "token"))

    static let placeholderSeeds = [
        "LEHV6nWB2yk8pyo0adR*.7kCMdnj", "LGF5]+Yk^6#M@-5c,1J5@[or[Q6.", "L6PZfSi_.AyE_3t7t7R**0o#DgR4",
        "1QcSHQRnh493V4dIh4eXh1h4kJUI", "3OcRJYB4d3h/iIeHeEh3eIhw+j2w", "|", "00", "LEHV6nWB2yk8pyo0adR*.7kCMdn",
    ]

    static let s3Seeds = [
        "s3://bucket/key.jpg", "s3://my.bucket/a b/c+d/%E2%9C%93.png?versionId=3/L4kqtJlcpXroDTDmJ+rmSpXd3dIbrHY",
        "s3://Bucket_Name/../x", "s3://b/k?versionId=1&x=2",
        "[default]\naws_access_key_id = A\naws_secret_access_key = B\n[profile p]\ns3 =\n  addressing_style = path\n",
        "<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code><Message>The key &lt;x&gt; does not exist</Message></Error>",
    ]

    /// Small valid profiles written here (a matrix/TRC RGB one with a gamma and with a
    /// parametric curve, a grey one, a CMYK header), so the fuzzer starts past the header.
    static let iccSeeds: [(name: String, data: Data)] = [
        ("rgb-gamma.icc", ICCSeed.rgb(curve: ICCSeed.gamma(2.2))),
        ("rgb-parametric.icc", ICCSeed.rgb(curve: ICCSeed.sRGBParametric)),
        ("gray.icc", ICCSeed.profile(colorSpace: "GRAY", tags: [("kTRC", ICCSeed.gamma(1.8)), ("wtpt", ICCSeed.xyz(0.9642, 1, 0.8249))])),
        ("cmyk-header.icc", ICCSeed.profile(colorSpace: "CMYK", tags: [("wtpt", ICCSeed.xyz(0.9642, 1, 0.8249))])),
    ]
}

/// Builds ICC v2 profiles byte by byte for the fuzz seeds.
enum ICCSeed {
    static func rgb(curve: [UInt8]) -> Data {
        profile(colorSpace: "RGB ", tags: [
            ("rXYZ", xyz(0.6097, 0.3111, 0.0195)), ("gXYZ", xyz(0.2053, 0.6257, 0.0609)), ("bXYZ", xyz(0.1492, 0.0632, 0.7446)),
            ("wtpt", xyz(0.9642, 1, 0.8249)), ("rTRC", curve), ("gTRC", curve), ("bTRC", curve),
            ("desc", description("fuzz seed")),
        ])
    }

    static func profile(colorSpace: String, tags: [(String, [UInt8])]) -> Data {
        var body: [UInt8] = []
        var table: [UInt8] = be32(UInt32(tags.count))
        let dataStart = 128 + 4 + 12 * tags.count
        for (signature, content) in tags {
            while body.count % 4 != 0 { body.append(0) }
            table += Array(signature.utf8) + be32(UInt32(dataStart + body.count)) + be32(UInt32(content.count))
            body += content
        }
        var header = [UInt8](repeating: 0, count: 128)
        let size = be32(UInt32(128 + table.count + body.count))
        header.replaceSubrange(0..<4, with: size)
        header.replaceSubrange(8..<12, with: [2, 0x10, 0, 0])
        header.replaceSubrange(12..<16, with: Array("mntr".utf8))
        header.replaceSubrange(16..<20, with: Array(colorSpace.utf8))
        header.replaceSubrange(20..<24, with: Array("XYZ ".utf8))
        header.replaceSubrange(36..<40, with: Array("acsp".utf8))
        header.replaceSubrange(68..<80, with: s15(0.9642) + s15(1) + s15(0.8249))
        return Data(header + table + body)
    }

    static func xyz(_ x: Double, _ y: Double, _ z: Double) -> [UInt8] { Array("XYZ ".utf8) + [0, 0, 0, 0] + s15(x) + s15(y) + s15(z) }

    static func gamma(_ value: Double) -> [UInt8] {
        Array("curv".utf8) + [0, 0, 0, 0] + be32(1) + [UInt8(value), UInt8((value - Double(Int(value))) * 256)]
    }

    /// A `para` curve of type 3 with sRGB's parameters.
    static let sRGBParametric: [UInt8] = Array("para".utf8) + [0, 0, 0, 0, 0, 3, 0, 0]
        + s15(2.4) + s15(1 / 1.055) + s15(0.055 / 1.055) + s15(1 / 12.92) + s15(0.04045)

    static func description(_ text: String) -> [UInt8] {
        Array("desc".utf8) + [0, 0, 0, 0] + be32(UInt32(text.utf8.count + 1)) + Array(text.utf8) + [0]
            + [UInt8](repeating: 0, count: 4 + 4 + 2 + 1 + 67)
    }

    static func be32(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }

    static func s15(_ value: Double) -> [UInt8] { be32(UInt32(bitPattern: Int32((value * 65536).rounded()))) }
}
