import Crypto
import Foundation
import SwiftASN1
import X509

/// A fresh self-signed certificate and its P-256 private key, generated in memory when created
/// (no key material is ever stored in the repository).
///
/// By default the certificate names `localhost` (common name and DNS SAN) and `127.0.0.1` (IP
/// SAN); ``init(dnsNames:includesLoopbackAddress:)`` names other hosts, for a certificate that
/// is trusted yet does not match the host a client connects to. It is valid from one hour ago for
/// one day and is marked for server authentication. It is its own certificate authority, so a
/// client trusts it by adding ``derBytes`` (or ``pemString``) as a trust root.
public struct SelfSignedCertificate: Sendable {
    /// The certificate, DER encoded.
    public let derBytes: [UInt8]
    /// The certificate, PEM encoded (`-----BEGIN CERTIFICATE-----`).
    public let pemString: String
    /// The private key, PEM encoded PKCS#8 (`-----BEGIN PRIVATE KEY-----`).
    public let privateKeyPEM: String

    /// Generates a new key pair and a certificate for `localhost` and `127.0.0.1`.
    public init() throws {
        try self.init(dnsNames: ["localhost"], includesLoopbackAddress: true)
    }

    /// Generates a new key pair and a certificate naming `dnsNames` (the first is also the
    /// common name) and, when `includesLoopbackAddress`, the IP address `127.0.0.1`.
    /// - Precondition: `dnsNames` is not empty.
    public init(dnsNames: [String], includesLoopbackAddress: Bool) throws {
        precondition(!dnsNames.isEmpty, "a certificate needs at least one DNS name")
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            OrganizationName("swift-web-image tests")
            CommonName(dnsNames[0])
        }
        var alternativeNames = dnsNames.map { GeneralName.dnsName($0) }
        if includesLoopbackAddress {
            alternativeNames.append(.ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])))
        }
        let now = Date()
        let extensions = try Certificate.Extensions {
            // Its own issuer: a trust root must be allowed to sign certificates (BoringSSL
            // rejects a self-signed leaf whose key usage lacks keyCertSign).
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames(alternativeNames)
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(86_400),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(key))
        let pem = try certificate.serializeAsPEM()
        derBytes = pem.derBytes
        pemString = pem.pemString
        privateKeyPEM = key.pemRepresentation
    }
}
