import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// BT.2100's transfers and sRGB's, written apart from the library's, for the expected values.
enum ReferenceHDR {
    static let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
    static let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
    static let a = 0.17883277, b = 0.28466892, c = 0.55991073

    /// PQ signal → cd/m².
    static func pqLuminance(_ signal: Double) -> Double {
        let p = pow(signal, 1 / m2)
        return 10_000 * pow(max(p - c1, 0) / (c2 - c3 * p), 1 / m1)
    }

    /// cd/m² → PQ signal.
    static func pqSignal(_ luminance: Double) -> Double {
        let y = pow(luminance / 10_000, m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    /// HLG signal → scene light 0…1.
    static func hlgScene(_ signal: Double) -> Double {
        signal <= 0.5 ? signal * signal / 3 : (exp((signal - c) / a) + b) / 12
    }

    /// Scene light 0…1 → HLG signal.
    static func hlgSignal(_ scene: Double) -> Double {
        scene <= 1.0 / 12 ? (3 * scene).squareRoot() : a * log(12 * scene - b) + c
    }

    /// sRGB code (unrounded, 0…255) of linear light 0…1.
    static func sRGB8(_ linear: Double) -> Double {
        let v = min(max(linear, 0), 1)
        return 255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055)
    }

    /// Linear light of an sRGB code.
    static func linear(_ code: UInt8) -> Double {
        let v = Double(code) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    /// Linear BT.709 → linear BT.2020 (ITU-R BT.2087).
    static func bt2020(_ rgb: [Double]) -> [Double] {
        [
            0.6274 * rgb[0] + 0.3293 * rgb[1] + 0.0433 * rgb[2],
            0.0691 * rgb[0] + 0.9195 * rgb[1] + 0.0114 * rgb[2],
            0.0164 * rgb[0] + 0.0880 * rgb[1] + 0.8956 * rgb[2],
        ]
    }
}

/// H-4: PQ and HLG sources to SDR, as ITU-R BT.2408 maps them: HDR reference white (203 cd/m²,
/// HLG 0.75) to SDR white, linear below, a monotonic roll-off above, BT.2020 to sRGB.
@Suite("Colour: PQ and HLG to SDR (BT.2408)")
struct HDRToneMappingTests {
    enum Transfer: String, CaseIterable, CustomTestStringConvertible {
        case pq, hlg
        var code: UInt16 { self == .pq ? 16 : 18 }
        var testDescription: String { rawValue.uppercased() }

        /// Display luminance (cd/m²) of a grey of signal `signal` (HLG: OOTF at 1,000 cd/m²,
        /// gamma 1.2).
        func luminance(_ signal: Double) -> Double {
            switch self {
            case .pq: return ReferenceHDR.pqLuminance(signal)
            case .hlg: return 1_000 * pow(ReferenceHDR.hlgScene(signal), 1.2)
            }
        }

        /// The signal of HDR reference white.
        var referenceWhite: Double { self == .pq ? ReferenceHDR.pqSignal(203) : 0.75 }

        /// The signals (per channel, BT.2020) of display light `rgb` (BT.2020, cd/m²).
        func signals(_ rgb: [Double]) -> [Double] {
            switch self {
            case .pq:
                return rgb.map { ReferenceHDR.pqSignal($0) }
            case .hlg:
                let yd = 0.2627 * rgb[0] + 0.6780 * rgb[1] + 0.0593 * rgb[2]
                guard yd > 0 else { return [0, 0, 0] }
                let ys = pow(yd / 1_000, 1 / 1.2)
                return rgb.map { ReferenceHDR.hlgSignal($0 / (1_000 * pow(ys, 0.2))) }
            }
        }
    }

    enum Container: String, CaseIterable, CustomTestStringConvertible {
        case avif10, png16
        var testDescription: String { self == .avif10 ? "10-bit AVIF" : "16-bit PNG with cICP" }
    }

    /// `width` × `height` pixels of 10-bit codes (3 a pixel) in `container`, BT.2020 primaries.
    static func file(_ codes: [UInt16], width: Int, height: Int, transfer: Transfer, container: Container) throws -> Data {
        switch container {
        case .avif10:
            return try AVIFTestWriter.avif10(width: width, height: height, samples: codes, primaries: 9, transfer: transfer.code)
        case .png16:
            // 10-bit codes widened to 16 bits by bit replication, as libavif and libspng scale.
            return WidePNGWriter.png(
                width: width, height: height, channels: 3, samples: codes.map { $0 << 6 | $0 >> 4 },
                chunks: [WidePNGWriter.cicp(primaries: 9, transfer: UInt8(transfer.code))])
        }
    }

    static func decode(_ data: Data, _ container: Container, options: DecodeOptions = .default) throws -> Image {
        container == .avif10 ? try AVIFCoder().decode(data, options: options) : try PNGCoder().decode(data, options: options)
    }

    /// A grey ramp: every fourth 10-bit code, the top one and reference white's.
    static func ramp(_ transfer: Transfer) -> [Int] {
        let white = Int((transfer.referenceWhite * 1023).rounded())
        return Array(Set(Array(stride(from: 0, to: 1024, by: 4)) + [1023, white])).sorted()
    }

    /// The grey ramp's checks: below 150 cd/m² within 6 codes of BT.2408's linear mapping,
    /// reference white at least 240, monotonic, the top at white.
    static func checkRamp(_ values: [UInt8], codes: [Int], transfer: Transfer, maxCode: Double) {
        let white = Int((transfer.referenceWhite * maxCode).rounded())
        for (code, value) in zip(codes, values) {
            let luminance = transfer.luminance(Double(code) / maxCode)
            if luminance < 150 {
                let expected = ReferenceHDR.sRGB8(luminance / 203)
                #expect(abs(Double(value) - expected) <= 6, "code \(code): \(luminance) cd/m² gave \(value), BT.2408 \(expected)")
            }
            if code == white { #expect(value >= 240, "reference white gave \(value)") }
        }
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 }, "not monotonic: \(values)")
        #expect(values.last == 255)
    }

    @Test(
        "Given a PQ or HLG grey ramp, when decoded by default, then it follows BT.2408's mapping to SDR",
        arguments: Transfer.allCases, Container.allCases)
    func greyRamp(transfer: Transfer, container: Container) throws {
        let codes = Self.ramp(transfer)
        let samples = (0..<2).flatMap { _ in codes.flatMap { Array(repeating: UInt16($0), count: 3) } }
        let data = try Self.file(samples, width: codes.count, height: 2, transfer: transfer, container: container)
        #expect(try (container == .avif10 ? AVIFCoder().readMetadata(data) : PNGCoder().readMetadata(data)).colorProfile?.kind
            == .cicp(CICP(colorPrimaries: 9, transferCharacteristics: transfer.code, matrixCoefficients: 0, fullRange: true)))
        let image = try Self.decode(data, container)
        #expect(image.colorProfile == nil)
        let pixels = (0..<codes.count).map { image.pixels.pixel(x: $0, y: 1) }
        #expect(pixels.allSatisfy { $0.r == $0.g && $0.g == $0.b && $0.a == 255 })
        Self.checkRamp(pixels.map(\.r), codes: codes, transfer: transfer, maxCode: 1023)
    }

    @Test("Given an 8-bit PQ or HLG PNG, when decoded by default, then its 8-bit values follow BT.2408 too", arguments: Transfer.allCases)
    func eightBitRamp(transfer: Transfer) throws {
        let codes = Array(0...255)
        let ramp = PixelBuffer(width: 256, height: 1, bytes: codes.flatMap { [UInt8($0), UInt8($0), UInt8($0), 255] })
        let untagged = try PNGCoder().encode(Image(pixels: ramp, hasAlpha: false), format: .png, options: EncodeOptions())
        let png = CodedColorTests.inserting("cICP", [9, UInt8(transfer.code), 0, 1], into: untagged)
        let image = try PNGCoder().decode(png, options: .default)
        Self.checkRamp((0..<256).map { image.pixels.pixel(x: $0, y: 0).r }, codes: codes, transfer: transfer, maxCode: 255)
    }

    @Test("Given a 16-bit PQ PNG, when decoded at 1/2, then each block is the full decode's tone-mapped value")
    func reducedDecode() throws {
        let codes = Self.ramp(.pq)
        let row = codes.flatMap { code in Array(repeating: UInt16(code), count: 6) }
        let data = try Self.file(row + row, width: codes.count * 2, height: 2, transfer: .pq, container: .png16)
        let full = try PNGCoder().decode(data, options: .default)
        let reduced = try PNGCoder().decode(data, scaleDenominator: 2, options: .default)
        #expect(reduced.width == codes.count && reduced.colorProfile == nil)
        for x in 0..<codes.count { #expect(reduced.pixels.pixel(x: x, y: 0) == full.pixels.pixel(x: x * 2, y: 0)) }
    }

    /// The 24 patches of a colour checker in sRGB.
    static let checker: [[UInt8]] = [
        [115, 82, 68], [194, 150, 130], [98, 122, 157], [87, 108, 67], [133, 128, 177], [103, 189, 170],
        [214, 126, 44], [80, 91, 166], [193, 90, 99], [94, 60, 108], [157, 188, 64], [224, 163, 46],
        [56, 61, 150], [70, 148, 73], [175, 54, 60], [231, 199, 31], [187, 86, 149], [8, 133, 161],
        [243, 243, 242], [200, 200, 200], [160, 160, 160], [122, 122, 121], [85, 85, 85], [52, 52, 52],
    ]

    @Test(
        "Given a colour chart in BT.2020 PQ or HLG at 3/4 of reference white, when decoded, then it comes back as the sRGB chart at 3/4",
        arguments: Transfer.allCases, Container.allCases)
    func colourChart(transfer: Transfer, container: Container) throws {
        let samples = Self.checker.flatMap { patch -> [UInt16] in
            let light = ReferenceHDR.bt2020(patch.map { ReferenceHDR.linear($0) * 0.75 * 203 })
            return transfer.signals(light).map { UInt16(($0 * 1023).rounded()) }
        }
        let data = try Self.file(samples, width: Self.checker.count, height: 1, transfer: transfer, container: container)
        let image = try Self.decode(data, container)
        var differences: [Double] = []
        for (x, patch) in Self.checker.enumerated() {
            let expected = patch.map { UInt8(ReferenceHDR.sRGB8(ReferenceHDR.linear($0) * 0.75).rounded()) }
            let got = image.pixels.pixel(x: x, y: 0)
            differences.append(ciede2000(Lab(r: got.r, g: got.g, b: got.b), Lab(r: expected[0], g: expected[1], b: expected[2])))
        }
        let mean = differences.reduce(0, +) / Double(differences.count)
        #expect(mean <= 1.0 && (differences.max() ?? 0) <= 3, "CIEDE2000 per patch: \(differences)")
    }

    @Test(
        "Given BT.2020 primaries outside sRGB, when decoded, then they land inside sRGB with their luminance and dominant channel kept",
        arguments: Transfer.allCases)
    func outOfGamut(transfer: Transfer) throws {
        // Red, green, blue of BT.2020 at 5 % of reference white's luminance: low enough that no
        // channel reaches the tone roll-off, which would lower the luminance by design.
        let primaries: [[Double]] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
        let luma = [0.2627, 0.6780, 0.0593]
        let samples = primaries.enumerated().flatMap { index, rgb -> [UInt16] in
            let light = rgb.map { $0 * 0.05 / luma[index] * 203 }
            return transfer.signals(light).map { UInt16(($0 * 1023).rounded()) }
        }
        let image = try Self.decode(
            try Self.file(samples, width: 3, height: 1, transfer: transfer, container: .avif10), .avif10)
        for index in 0..<3 {
            let p = image.pixels.pixel(x: index, y: 0)
            let channels = [p.r, p.g, p.b]
            let linear = channels.map { ReferenceHDR.linear($0) }
            let y = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
            #expect(abs(y - 0.05) <= 0.005, "primary \(index): \(p), luminance \(y)")
            #expect(channels.indices.max { channels[$0] < channels[$1] } == index, "primary \(index): \(p)")
        }
    }

    @Test("Given a PQ source and colour descriptions ignored, when decoded, then the signal is kept as stored")
    func ignoredKeepsSignal() throws {
        let white = UInt16((ReferenceHDR.pqSignal(203) * 1023).rounded())
        let data = try Self.file([white, white, white], width: 1, height: 1, transfer: .pq, container: .avif10)
        var options = DecodeOptions()
        options.colorManagement = .ignore
        let value = try AVIFCoder().decode(data, options: options).pixels.pixel(x: 0, y: 0).r
        #expect(abs(Int(value) - Int((Double(white) / 1023 * 255).rounded())) <= 1)
        options.colorManagement = .preserve
        let preserved = try AVIFCoder().decode(data, options: options)
        #expect(preserved.pixels.pixel(x: 0, y: 0).r >= 240 && preserved.colorProfile == nil)
    }
}
