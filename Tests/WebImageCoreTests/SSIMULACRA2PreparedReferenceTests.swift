import Testing
@testable import WebImageCore
import WebImageTesting

/// A prepared reference gives the score of the plain comparison, and the wide kernels the score
/// of the portable ones, on opaque and transparent images and on sizes that are not multiples
/// of 8 or have fewer than six scales.
@Suite("SSIMULACRA2 prepared reference and kernel sets")
struct SSIMULACRA2PreparedReferenceTests {
    /// A smooth picture with edges, plus seeded noise of `noise`; alpha from `alpha(x, y)`.
    static func picture(
        width: Int, height: Int, noise: Int, seed: UInt64, alpha: (Int, Int) -> UInt8 = { _, _ in 255 }
    ) -> PixelBuffer {
        var random = SeededRandom(seed: seed)
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                let base = [(x * 255) / width, (y * 255) / height, ((x / 7 + y / 5) % 2) * 180 + 30]
                for c in 0..<3 {
                    let jitter = noise > 0 ? random.below(2 * noise + 1) - noise : 0
                    bytes[i + c] = UInt8(clamping: base[c] + jitter)
                }
                bytes[i + 3] = alpha(x, y)
            }
        }
        return PixelBuffer(width: width, height: height, bytes: bytes)
    }

    static let sizes = [(64, 64), (203, 117), (37, 29), (9, 300)]

    @Test("prepared and plain scores agree", arguments: sizes)
    func preparedMatchesPlain(size: (Int, Int)) throws {
        let (width, height) = size
        let reference = Self.picture(width: width, height: height, noise: 0, seed: 1)
        let prepared = try SSIMULACRA2.PreparedReference(reference)
        let scorer = SSIMULACRA2.Scorer()
        for (noise, seed) in [(3, 2), (20, 3), (60, 4)] as [(Int, UInt64)] {
            let distorted = Self.picture(width: width, height: height, noise: noise, seed: seed)
            let plain = try scorer.score(reference: reference, distorted: distorted)
            let fromPrepared = try scorer.score(prepared: prepared, distorted: distorted)
            #expect(plain < 100)
            #expect(abs(plain - fromPrepared) < 1e-3, "\(width)x\(height) noise \(noise): \(plain) and \(fromPrepared)")
        }
        #expect(try scorer.score(prepared: prepared, distorted: reference) == 100)
    }

    @Test("transparency: a prepared reference with alpha, and an opaque one against a candidate with alpha")
    func preparedWithAlpha() throws {
        let holed: (Int, Int) -> UInt8 = { x, y in (x / 16 + y / 16) % 2 == 0 ? 255 : UInt8((x * 3) % 256) }
        let transparent = Self.picture(width: 96, height: 80, noise: 0, seed: 1, alpha: holed)
        let opaque = Self.picture(width: 96, height: 80, noise: 0, seed: 1)
        let candidateWithAlpha = Self.picture(width: 96, height: 80, noise: 15, seed: 5, alpha: holed)
        let opaqueCandidate = Self.picture(width: 96, height: 80, noise: 15, seed: 5)
        let scorer = SSIMULACRA2.Scorer()
        for reference in [transparent, opaque] {
            let prepared = try SSIMULACRA2.PreparedReference(reference)
            for candidate in [candidateWithAlpha, opaqueCandidate] {
                let plain = try scorer.score(reference: reference, distorted: candidate)
                let fromPrepared = try scorer.score(prepared: prepared, distorted: candidate)
                #expect(abs(plain - fromPrepared) < 1e-3, "\(plain) and \(fromPrepared)")
            }
        }
    }

    @Test("a prepared reference refuses a candidate of another size in plain words")
    func preparedRefusesOtherSizes() throws {
        let prepared = try SSIMULACRA2.PreparedReference(Self.picture(width: 32, height: 32, noise: 0, seed: 1))
        #expect {
            try SSIMULACRA2.Scorer().score(prepared: prepared, distorted: Self.picture(width: 32, height: 31, noise: 0, seed: 1))
        } throws: { error in
            "\(error)".contains("differ in size: 32x32 and 32x31")
        }
        #expect(throws: WebImageError.self) {
            try SSIMULACRA2.PreparedReference(Self.picture(width: 7, height: 32, noise: 0, seed: 1))
        }
    }

    @Test("the byte count it announces is what it holds")
    func byteCount() throws {
        for (width, height) in Self.sizes {
            let prepared = try SSIMULACRA2.PreparedReference(Self.picture(width: width, height: height, noise: 0, seed: 1))
            let held = (prepared.opaque ?? []).reduce(0) { $0 + $1.floatCount } * 4
            #expect(SSIMULACRA2.PreparedReference.byteCount(for: prepared.size, hasAlpha: false) == held)
        }
    }

    @Test("the wide kernels score as the portable ones", .enabled(if: SSIMULACRA2.kernelLevel > 0))
    func kernelSetsAgree() throws {
        let wide = SSIMULACRA2.Scorer()
        let portable = SSIMULACRA2.Scorer(kernelLevel: 0)
        for (width, height) in Self.sizes {
            let reference = Self.picture(width: width, height: height, noise: 0, seed: 1)
            let distorted = Self.picture(width: width, height: height, noise: 25, seed: 9)
            let a = try wide.score(reference: reference, distorted: distorted)
            let b = try portable.score(reference: reference, distorted: distorted)
            #expect(abs(a - b) < 0.01, "\(width)x\(height): \(a) and \(b)")
        }
    }
}
