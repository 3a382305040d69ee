import Testing
@testable import WebImageServer

@Suite struct URLSignerTests {
    /// imgproxy's documented signing example (docs "Signing a URL").
    static let exampleKey = "736563726574"  // "secret"
    static let exampleSalt = "68656C6C6F"  // "hello"
    static let examplePath = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"

    @Test func imgproxyDocumentedExample() throws {
        let pair = try #require(URLSigner.KeyPair(hexKey: Self.exampleKey, hexSalt: Self.exampleSalt))
        let signer = URLSigner(keyPairs: [pair])
        #expect(signer.sign(Self.examplePath) == "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8")
        #expect(signer.verify(signature: "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8", path: Self.examplePath))
    }
}

extension URLSignerTests {
    @Test func keyRotationAcceptsEveryPairAndSignsWithTheFirst() throws {
        let old = try #require(URLSigner.KeyPair(hexKey: "6f6c64", hexSalt: "73616c74"))
        let new = try #require(URLSigner.KeyPair(hexKey: Self.exampleKey, hexSalt: Self.exampleSalt))
        let rotating = URLSigner(keyPairs: [new, old])
        let oldOnly = URLSigner(keyPairs: [old])
        let byOld = oldOnly.sign(Self.examplePath)
        #expect(rotating.verify(signature: byOld, path: Self.examplePath))
        #expect(rotating.sign(Self.examplePath) == "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8")
        #expect(!oldOnly.verify(signature: rotating.sign(Self.examplePath), path: Self.examplePath))
    }

    @Test func truncatedSignatureIsThePrefixOfTheDigest() throws {
        let pair = try #require(URLSigner.KeyPair(hexKey: Self.exampleKey, hexSalt: Self.exampleSalt))
        let short = URLSigner(keyPairs: [pair], signatureSize: 8)
        let full = try #require(Base64URL.decode("oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8"))
        #expect(short.sign(Self.examplePath) == Base64URL.encode(full.prefix(8)))
        #expect(short.verify(signature: Base64URL.encode(full.prefix(8)), path: Self.examplePath))
        // A full-length signature is not accepted where 8 bytes are configured, nor the reverse.
        #expect(!short.verify(signature: "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8", path: Self.examplePath))
        #expect(!URLSigner(keyPairs: [pair]).verify(signature: Base64URL.encode(full.prefix(8)), path: Self.examplePath))
    }

    @Test func tamperedPathOrSignatureIsRefused() throws {
        let pair = try #require(URLSigner.KeyPair(hexKey: Self.exampleKey, hexSalt: Self.exampleSalt))
        let signer = URLSigner(keyPairs: [pair])
        #expect(!signer.verify(signature: "oKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8", path: Self.examplePath + "x"))
        #expect(!signer.verify(signature: "pKfUtW34Dvo2BGQehJFR4Nr0_rIjOtdtzJ3QFsUcXH8", path: Self.examplePath))
        #expect(!signer.verify(signature: "not base64!", path: Self.examplePath))
        #expect(!signer.verify(signature: "", path: Self.examplePath))
    }

    @Test func hexKeysAreValidated() {
        #expect(URLSigner.KeyPair(hexKey: "abc", hexSalt: "00") == nil)
        #expect(URLSigner.KeyPair(hexKey: "zz", hexSalt: "00") == nil)
        #expect(URLSigner.KeyPair(hexKey: "", hexSalt: "00") == nil)
        #expect(URLSigner.KeyPair(hexKey: "AbCd", hexSalt: "")?.key == [0xAB, 0xCD])
    }
}
