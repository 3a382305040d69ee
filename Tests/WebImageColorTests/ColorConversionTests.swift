import Foundation
import Testing
import WebImageCodecs
import WebImageCore

/// G-2, G-4, G-5: tagged images decode to sRGB as LittleCMS converts them.
@Suite("Colour: conversion to sRGB")
struct ColorConversionTests {
    static let coders: [(ImageFormat, any ImageCoder, EncodeOptions)] = [
        (.png, PNGCoder(), EncodeOptions()),
        (.jpeg, JPEGCoder(), EncodeOptions(quality: 0.9)),
        (.webp, WebPCoder(), EncodeOptions(lossless: true)),
    ]

    static let ignore: DecodeOptions = {
        var options = DecodeOptions()
        options.colorManagement = .ignore
        return options
    }()

    @Test("CIEDE2000 gives Sharma's published values")
    func ciede2000Reference() {
        let pairs: [(Lab, Lab, Double)] = [
            (Lab(l: 50, a: 2.6772, b: -79.7751), Lab(l: 50, a: 0, b: -82.7485), 2.0425),
            (Lab(l: 50, a: 2.5, b: 0), Lab(l: 73, a: 25, b: -18), 27.1492),
            (Lab(l: 2.0776, a: 0.0795, b: -1.1350), Lab(l: 0.9033, a: -0.0636, b: -0.5514), 0.9082),
        ]
        for (p, q, expected) in pairs {
            #expect(abs(ciede2000(p, q) - expected) < 0.0001)
        }
    }

    @Test(
        "Given a wide-gamut profile embedded in PNG, JPEG and WebP, when decoded, then the pixels are what LittleCMS makes of them",
        arguments: TestProfiles.allWide.map(\.name))
    func wideGamutMatchesLittleCMS(spaceName: String) throws {
        let space = try #require(TestProfiles.allWide.first { $0.name == spaceName })
        let profile = TestProfiles.profile(space)
        for (format, coder, encodeOptions) in Self.coders {
            let source = Image(pixels: TestImages.pattern(), hasAlpha: false, colorProfile: profile)
            let data = try coder.encode(source, format: format, options: encodeOptions)
            let asStored = try coder.decode(data, options: Self.ignore)
            let decoded = try coder.decode(data, options: .default)
            #expect(decoded.colorProfile == nil)
            let reference = TestProfiles.reference(asStored.pixels, from: profile)
            let difference = ColorDifference(decoded.pixels, reference)
            print("colour: \(format) \(space.name) against LittleCMS: \(difference)")
            // The matrix/TRC path agrees with LittleCMS within 0.5 (G-4), well inside G-5.
            #expect(difference.mean <= 0.5 && difference.p95 <= 1.0, "\(format) \(space.name): \(difference)")
            // And the conversion did something: the stored values are far from the result.
            #expect(ColorDifference(asStored.pixels, reference).mean > 1, "\(format) \(space.name)")
        }
    }

    @Test("Given a profile with an alpha channel image, when decoded, then alpha is kept and colours converted")
    func alphaIsKept() throws {
        let profile = TestProfiles.profile(TestProfiles.displayP3)
        let source = Image(pixels: TestImages.pattern(alpha: true), hasAlpha: true, colorProfile: profile)
        for (format, coder, options) in Self.coders where format != .jpeg {
            let data = try coder.encode(source, format: format, options: options)
            let asStored = try coder.decode(data, options: Self.ignore)
            let decoded = try coder.decode(data, options: .default)
            let reference = TestProfiles.reference(asStored.pixels, from: profile)
            let alphaOut = stride(from: 3, to: decoded.pixels.bytes.count, by: 4).map { decoded.pixels.bytes[$0] }
            let alphaIn = stride(from: 3, to: asStored.pixels.bytes.count, by: 4).map { asStored.pixels.bytes[$0] }
            #expect(alphaOut == alphaIn, "\(format)")
            let difference = ColorDifference(decoded.pixels, reference)
            #expect(difference.mean <= 0.5 && difference.p95 <= 1.0, "\(format): \(difference)")
        }
    }

    @Test("Given untagged and sRGB-tagged files, when decoded, then the pixels are byte-identical to ignoring colour")
    func sRGBIsUntouched() throws {
        for (format, coder, options) in Self.coders {
            for profile in [nil, TestProfiles.sRGB()] {
                let source = Image(pixels: TestImages.pattern(), hasAlpha: false, colorProfile: profile)
                let data = try coder.encode(source, format: format, options: options)
                let decoded = try coder.decode(data, options: .default)
                let asStored = try coder.decode(data, options: Self.ignore)
                #expect(decoded.pixels.bytes == asStored.pixels.bytes, "\(format) \(profile?.name ?? "untagged")")
                #expect(decoded.colorProfile == nil)
            }
        }
        #expect(!ColorConversion.convertsPixels(TestProfiles.sRGB()))
        #expect(!ColorConversion.convertsPixels(ColorProfile(kind: .sRGB)))
    }

    @Test("Given a grey PNG with a grey profile, when decoded, then it stays grey and matches LittleCMS")
    func grayStaysGray() throws {
        let profile = TestProfiles.gray(gamma: 1.8)
        #expect(profile.colorModel == .gray)
        let source = Image(pixels: TestImages.grayRamp(), hasAlpha: false, colorProfile: profile)
        let data = try PNGCoder().encode(source, format: .png, options: EncodeOptions())
        let decoded = try PNGCoder().decode(data, options: .default)
        let bytes = decoded.pixels.bytes
        let isGray = stride(from: 0, to: bytes.count, by: 4).allSatisfy { (i: Int) -> Bool in
            bytes[i] == bytes[i + 1] && bytes[i] == bytes[i + 2]
        }
        #expect(isGray)
        let reference = TestProfiles.reference(source.pixels, from: profile, gray: true)
        let difference = ColorDifference(decoded.pixels, reference)
        #expect(difference.mean <= 0.5 && difference.p95 <= 1.0, "\(difference)")
        #expect(decoded.pixels.bytes != source.pixels.bytes)
    }

    @Test("Given a thumbnail or a reduced decode of a tagged JPEG, when decoded, then the reduced pixels are converted")
    func convertsAfterShrinkOnLoad() throws {
        let profile = TestProfiles.profile(TestProfiles.adobeRGB)
        let source = Image(pixels: TestImages.pattern(width: 256, height: 128), hasAlpha: false, colorProfile: profile)
        let data = try JPEGCoder().encode(source, format: .jpeg, options: EncodeOptions(quality: 0.95))
        var thumbnail = DecodeOptions(thumbnailPixelSize: PixelSize(width: 64, height: 64))
        let decoded = try JPEGCoder().decode(data, options: thumbnail)
        thumbnail.colorManagement = .ignore
        let asStored = try JPEGCoder().decode(data, options: thumbnail)
        #expect(decoded.pixelSize == asStored.pixelSize)
        let difference = ColorDifference(decoded.pixels, TestProfiles.reference(asStored.pixels, from: profile))
        #expect(difference.mean <= 0.5 && difference.p95 <= 1.0, "\(difference)")

        let reduced = try JPEGCoder().decode(data, scaleDenominator: 4, options: .default)
        let reducedStored = try JPEGCoder().decode(data, scaleDenominator: 4, options: Self.ignore)
        let reducedDifference = ColorDifference(reduced.pixels, TestProfiles.reference(reducedStored.pixels, from: profile))
        #expect(reducedDifference.mean <= 0.5, "\(reducedDifference)")
    }

    @Test("Given a profile larger than one APP2 segment, when embedded in a JPEG and decoded, then it is read whole")
    func multiSegmentJPEGProfile() throws {
        let profile = TestProfiles.profile(TestProfiles.displayP3, tableEntries: 16_384)
        let iccSize = try #require(profile.iccData?.count)
        #expect(iccSize > 65_519)  // two APP2 segments
        let source = Image(pixels: TestImages.pattern(), hasAlpha: false, colorProfile: profile)
        let data = try JPEGCoder().encode(source, format: .jpeg, options: EncodeOptions(quality: 0.9))
        var preserve = DecodeOptions()
        preserve.colorManagement = .preserve
        let kept = try JPEGCoder().decode(data, options: preserve)
        #expect(kept.colorProfile == profile)
        let metadata = try JPEGCoder().readMetadata(data)
        #expect(metadata.colorProfile?.name == "Display P3 (test)")
        let decoded = try JPEGCoder().decode(data, options: .default)
        let difference = ColorDifference(decoded.pixels, TestProfiles.reference(kept.pixels, from: profile))
        #expect(difference.mean <= 0.5 && difference.p95 <= 1.0, "\(difference)")
    }
}
