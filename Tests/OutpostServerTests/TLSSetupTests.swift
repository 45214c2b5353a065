import Foundation
import Testing

@testable import OutpostServer

@Suite struct TLSSetupTests {
    @Test func selfSignedPEMsLoadFromFilesAndBadFilesAreErrors() throws {
        let (certificate, key) = try TLSSetup.makeSelfSigned(hostnames: ["outpost.local", "10.0.0.5"])
        #expect(certificate.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(key.contains("PRIVATE KEY"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificatePath = directory.appendingPathComponent("cert.pem").path
        let keyPath = directory.appendingPathComponent("key.pem").path
        try Data(certificate.utf8).write(to: URL(fileURLWithPath: certificatePath))
        try Data(key.utf8).write(to: URL(fileURLWithPath: keyPath))
        let configuration = try TLSSetup.files(certificate: certificatePath, privateKey: keyPath).configuration()
        #expect(configuration.certificateChain.count == 1)
        #expect(throws: (any Error).self) { try TLSSetup.files(certificate: keyPath, privateKey: keyPath).configuration() }
        #expect(throws: (any Error).self) { try TLSSetup.files(certificate: "/nonexistent.pem", privateKey: keyPath).configuration() }
    }
}
