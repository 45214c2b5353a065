import Crypto
import Foundation
import NIOSSL
import SwiftASN1
import X509

/// How the server speaks TLS: from PEM files, or with a certificate made at start-up.
public enum TLSSetup: Sendable {
    case files(certificate: String, privateKey: String)
    /// A fresh self-signed certificate for `127.0.0.1`, `localhost` and the given names:
    /// for tests and local use (the ArcGIS API for Python talks HTTPS only).
    case selfSigned(hostnames: [String])

    public func configuration() throws -> TLSConfiguration {
        switch self {
        case .files(let certificate, let privateKey):
            let chain = try NIOSSLCertificate.fromPEMFile(certificate).map { NIOSSLCertificateSource.certificate($0) }
            let key = try NIOSSLPrivateKey(file: privateKey, format: .pem)
            return TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        case .selfSigned(let hostnames):
            let (certificatePEM, keyPEM) = try Self.makeSelfSigned(hostnames: hostnames)
            let certificate = try NIOSSLCertificate(bytes: Array(certificatePEM.utf8), format: .pem)
            let key = try NIOSSLPrivateKey(bytes: Array(keyPEM.utf8), format: .pem)
            return TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
        }
    }

    /// A P-256 self-signed certificate valid for a year, as PEM (certificate, private key).
    public static func makeSelfSigned(hostnames: [String]) throws -> (certificate: String, privateKey: String) {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName("Outpost self-signed")
            OrganizationName("Outpost")
        }
        let now = Date()
        var names: [GeneralName] = [.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))]
        for host in hostnames where host != "localhost" && host != "127.0.0.1" {
            let octets = host.split(separator: ".").compactMap { UInt8($0) }
            if octets.count == 4 && host.split(separator: ".").count == 4 {
                names.append(.ipAddress(ASN1OctetString(contentBytes: ArraySlice(octets))))
            } else {
                names.append(.dnsName(host))
            }
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(365 * 24 * 3600),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                KeyUsage(digitalSignature: true)
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(names)
            },
            issuerPrivateKey: .init(key))
        return (try certificate.serializeAsPEM().pemString, key.pemRepresentation)
    }
}
