import Foundation
import Testing
import WebImageCodecs
import WebImageCore

@Suite("WebP header limits")
struct WebPLimitsTests {
    let coder = WebPCoder()

    /// A RIFF chunk: four-character tag, little-endian size, payload, padding to even size.
    private func chunk(_ tag: String, _ payload: [UInt8]) -> [UInt8] {
        var bytes = Array(tag.utf8)
        bytes += le(payload.count, 4) + payload
        if payload.count % 2 == 1 { bytes.append(0) }
        return bytes
    }

    private func le(_ value: Int, _ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// An animated WebP whose canvas is `width`×`height` with `frames` 1×1 lossless frames.
    private func animatedBomb(width: Int, height: Int, frames: Int) throws -> Data {
        let tiny = Image(pixels: PixelBuffer(width: 1, height: 1, bytes: [10, 20, 30, 255]), hasAlpha: false)
        let still = try [UInt8](coder.encode(tiny, format: .webp, options: EncodeOptions(lossless: true)))
        // The still file is RIFF(12) + one VP8L chunk.
        let vp8l = Array(still[12...])
        var body = Array("WEBP".utf8)
        body += chunk("VP8X", [0x02, 0, 0, 0] + le(width - 1, 3) + le(height - 1, 3))
        body += chunk("ANIM", [0, 0, 0, 0, 0, 0])
        for _ in 0..<frames {
            body += chunk("ANMF", le(0, 3) + le(0, 3) + le(0, 3) + le(0, 3) + le(100, 3) + [0] + vp8l)
        }
        return Data(Array("RIFF".utf8) + le(body.count, 4) + body)
    }

    @Test("Given a small animation, then the synthetic container decodes (the builder is valid)")
    func builderIsValid() throws {
        let image = try coder.decode(animatedBomb(width: 4, height: 3, frames: 2), options: .default)
        #expect(image.pixelSize == PixelSize(width: 4, height: 3))
        #expect(image.frames.count == 2)
    }

    @Test("Given an animation declaring a 16000×16000 canvas, when decoded, then imageTooLarge is thrown from the header")
    func hugeCanvas() throws {
        let data = try animatedBomb(width: 16_000, height: 16_000, frames: 1)
        #expect(try coder.readMetadata(data).pixelSize == PixelSize(width: 16_000, height: 16_000))
        for attempt in [
            { _ = try coder.decode(data, options: .default) },
            { _ = try coder.makeAnimatedSource(data, options: .default) },
        ] {
            #expect {
                try attempt()
            } throws: { error in
                if case WebImageError.imageTooLarge = error { return true }
                return false
            }
        }
    }

    @Test("Given an animation with more frames than allowed, when decoded, then imageTooLarge is thrown")
    func tooManyFrames() throws {
        var limits = DecodeLimits()
        limits.maxFrameCount = 50
        let data = try animatedBomb(width: 8, height: 8, frames: 51)
        #expect {
            try coder.decode(data, options: DecodeOptions(limits: limits))
        } throws: { error in
            if case WebImageError.imageTooLarge = error { return true }
            return false
        }
    }
}
