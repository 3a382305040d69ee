import CTIFF
import Foundation
import Testing
import WebImageCodecs
import WebImageCore
import WebImageTesting

/// G-2: contiguous 8-bit CMYK TIFFs are converted as CMYK JPEGs are — with their own CMYK
/// profile (tag 34675), else the built-in default CMYK profile — and come out as LittleCMS makes
/// them; `.ignore` keeps libtiff's naive formula.
@Suite("Colour: CMYK TIFF")
struct CMYKTIFFTests {
    static let width = 96
    static let height = 60

    /// A CMYK TIFF (LZW) of `inks` written by libtiff: strips of 7 rows, or `tileSize` tiles
    /// (both leave partial blocks at the edges), with `profile` as tag 34675.
    static func tiff(_ inks: [UInt8], tileSize: Int?, profile: ColorProfile?) throws -> Data {
        var page = TIFFTestPage(
            width: width, height: height, samplesPerPixel: 4, photometric: PHOTOMETRIC_SEPARATED, compression: COMPRESSION_LZW,
            tileSize: tileSize, rowsPerStrip: 7, samples: inks)
        page.iccProfile = profile?.iccData.map { [UInt8]($0) }
        return try TIFFTestWriter.write([page])
    }

    /// libtiff's CMYK → RGB formula: `R = (255 − K)(255 − C) / 255`, opaque.
    static func naive(_ inks: [UInt8]) -> PixelBuffer {
        PixelBuffer.make(width: width, height: height) { out in
            for i in stride(from: 0, to: inks.count, by: 4) {
                let k = 255 - Int(inks[i + 3])
                for c in 0..<3 { out[i + c] = UInt8(k * (255 - Int(inks[i + c])) / 255) }
                out[i + 3] = 255
            }
        }
    }

    static func options(_ colorManagement: ColorManagement) -> DecodeOptions {
        var options = DecodeOptions()
        options.colorManagement = colorManagement
        return options
    }

    @Test(
        "Given an untagged CMYK TIFF in strips or tiles, when decoded, then it matches LittleCMS with the default profile",
        arguments: [nil, 16] as [Int?])
    func untagged(tileSize: Int?) throws {
        let inks = CMYKDefaultProfileTests.inks(width: Self.width, height: Self.height)
        let data = try Self.tiff(inks, tileSize: tileSize, profile: nil)
        #expect(try TIFFCoder().readMetadata(data).colorProfile == nil)
        let reference = try CMYKDefaultProfileTests.reference(
            inks, width: Self.width, height: Self.height, profile: DefaultCMYKProfile.profile, inverted: false)

        let decoded = try TIFFCoder().decode(data, options: .default)
        #expect(decoded.colorProfile == nil)
        #expect(!decoded.hasAlpha)
        let difference = ColorDifference(decoded.pixels, reference)
        #expect(difference.mean <= 1.0 && difference.p95 <= 2.0, "\(difference)")

        // `.ignore` keeps libtiff's naive formula, far from the printed colour.
        let ignored = try TIFFCoder().decode(data, options: Self.options(.ignore))
        #expect(ignored.pixels.bytes == Self.naive(inks).bytes)
        let naive = ColorDifference(ignored.pixels, reference)
        #expect(naive.mean > 5 * max(difference.mean, 0.5), "naive \(naive), ours \(difference)")

        // CMYK pixels cannot be kept: `.preserve` converts the same way and attaches nothing.
        let preserved = try TIFFCoder().decode(data, options: Self.options(.preserve))
        #expect(preserved.colorProfile == nil)
        #expect(preserved.pixels.bytes == decoded.pixels.bytes)

        // Frames of the animated source are converted alike.
        let frame = try TIFFCoder().makeAnimatedSource(data, options: .default).frame(at: 0)
        #expect(frame.bytes == decoded.pixels.bytes)
    }

    @Test(
        "Given a CMYK TIFF with a CMYK profile, when decoded, then it matches LittleCMS with that profile",
        arguments: [nil, 16] as [Int?])
    func tagged(tileSize: Int?) throws {
        let inks = CMYKDefaultProfileTests.inks(width: Self.width, height: Self.height)
        let profile = CMYKProfile.make()
        let data = try Self.tiff(inks, tileSize: tileSize, profile: profile)
        #expect(try TIFFCoder().readMetadata(data).colorProfile == profile)
        let reference = try CMYKDefaultProfileTests.reference(
            inks, width: Self.width, height: Self.height, profile: profile, inverted: false)

        let decoded = try TIFFCoder().decode(data, options: .default)
        #expect(decoded.colorProfile == nil)
        let difference = ColorDifference(decoded.pixels, reference)
        #expect(difference.mean <= 1.0 && difference.p95 <= 2.0, "\(difference)")

        // The file's profile is used, not the default one.
        let withDefault = try CMYKDefaultProfileTests.reference(
            inks, width: Self.width, height: Self.height, profile: DefaultCMYKProfile.profile, inverted: false)
        let other = ColorDifference(decoded.pixels, withDefault)
        #expect(other.mean > difference.mean + 1, "default profile \(other), file's \(difference)")

        #expect(try TIFFCoder().decode(data, options: Self.options(.ignore)).pixels.bytes == Self.naive(inks).bytes)
        let preserved = try TIFFCoder().decode(data, options: Self.options(.preserve))
        #expect(preserved.colorProfile == nil)
        #expect(preserved.pixels.bytes == decoded.pixels.bytes)
    }

    @Test("Given a thumbnail of a CMYK TIFF, when decoded, then it is the converted page resampled")
    func thumbnail() throws {
        let inks = CMYKDefaultProfileTests.inks(width: Self.width, height: Self.height)
        let data = try Self.tiff(inks, tileSize: 16, profile: nil)
        let thumb = try TIFFCoder().decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(width: 24, height: 15)))
        #expect(thumb.pixelSize == PixelSize(width: 24, height: 15))
        let full = try TIFFCoder().decode(data, options: .default)
        #expect(thumb.pixels.bytes == full.pixels.thumbnail(to: thumb.pixelSize).bytes)
    }

    @Test("Given truncated or corrupted CMYK TIFFs in strips or tiles, when decoded, then each ends with an image or a typed error", arguments: [nil, 16] as [Int?])
    func damaged(tileSize: Int?) throws {
        let inks = CMYKDefaultProfileTests.inks(width: Self.width, height: Self.height)
        let data = try Self.tiff(inks, tileSize: tileSize, profile: CMYKProfile.make())
        var variants: [Data] = stride(from: 8, to: data.count, by: max(1, data.count / 40)).map { data.prefix($0) }
        var random = SeededRandom(seed: 7)
        for _ in 0..<40 {
            var bytes = [UInt8](data)
            for _ in 0..<4 { bytes[8 + random.below(bytes.count - 8)] = UInt8(random.below(256)) }
            variants.append(Data(bytes))
        }
        for variant in variants {
            do {
                let image = try TIFFCoder().decode(variant, options: .default)
                #expect(image.pixels.bytes.count == image.pixels.width * image.pixels.height * 4)
            } catch {
                #expect(error is WebImageError, "\(error)")
            }
        }
    }

    @Test("Given a CMYK TIFF tagged with an RGB profile, when decoded, then the profile is ignored and the default CMYK profile used")
    func mismatchedProfile() throws {
        let inks = CMYKDefaultProfileTests.inks(width: Self.width, height: Self.height)
        let data = try Self.tiff(inks, tileSize: nil, profile: TestProfiles.profile(TestProfiles.displayP3))
        #expect(try TIFFCoder().readMetadata(data).colorProfile == nil)
        let untagged = try TIFFCoder().decode(try Self.tiff(inks, tileSize: nil, profile: nil), options: .default)
        for colorManagement in [ColorManagement.convertToSRGB, .preserve] {
            let decoded = try TIFFCoder().decode(data, options: Self.options(colorManagement))
            #expect(decoded.colorProfile == nil)
            #expect(decoded.pixels.bytes == untagged.pixels.bytes)
        }
    }

    @Test("Given the default profile embedded in a CMYK TIFF, when decoded, then it matches the untagged file's result")
    func defaultProfileEmbedded() throws {
        let inks = CMYKDefaultProfileTests.inks(width: Self.width, height: Self.height)
        let tagged = try TIFFCoder().decode(try Self.tiff(inks, tileSize: nil, profile: DefaultCMYKProfile.profile), options: .default)
        let untagged = try TIFFCoder().decode(try Self.tiff(inks, tileSize: nil, profile: nil), options: .default)
        #expect(tagged.pixels.bytes == untagged.pixels.bytes)
    }
}
