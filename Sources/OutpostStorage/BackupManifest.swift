import Crypto
import Foundation
import OutpostWire

/// What a backup folder holds and how to check it (docs/operations.md, "Backups"): every
/// file with its size and SHA-256, the store it was taken of, the generation and migrations
/// of its snapshot. Written last, so a folder without one is no backup.
public struct BackupManifest: Sendable, Equatable {
    public static let fileName = "manifest.json"
    /// Bumped when a restore of an older Outpost could not read what this one writes.
    public static let currentFormat = 1

    public struct File: Sendable, Equatable {
        /// Relative to the backup folder, `/`-separated.
        public var path: String
        public var size: Int64
        public var sha256: String

        public init(path: String, size: Int64, sha256: String) {
            self.path = path
            self.size = size
            self.sha256 = sha256
        }
    }

    public var format: Int
    /// Epoch milliseconds when the snapshot was taken.
    public var createdAt: Int64
    public var store: StoreIdentity
    /// The newest generation in the snapshot: every edit acknowledged before the backup began.
    public var generation: Int64
    public var migrations: [String]
    public var files: [File]

    public init(
        format: Int = BackupManifest.currentFormat, createdAt: Int64, store: StoreIdentity, generation: Int64, migrations: [String],
        files: [File]
    ) {
        self.format = format
        self.createdAt = createdAt
        self.store = store
        self.generation = generation
        self.migrations = migrations
        self.files = files
    }

    public var json: JSONValue {
        [
            "format": .int(Int64(format)), "createdAt": .int(createdAt), "storeId": .string(store.id), "epoch": .int(store.epoch),
            "generation": .int(generation), "migrations": .array(migrations.map(JSONValue.string)),
            "files": .array(files.map { ["path": .string($0.path), "size": .int($0.size), "sha256": .string($0.sha256)] }),
        ]
    }

    public init(json: JSONValue) throws(BackupFailure) {
        guard let format = json["format"]?.int64Value, let createdAt = json["createdAt"]?.int64Value,
            let storeId = json["storeId"]?.stringValue, let epoch = json["epoch"]?.int64Value,
            let generation = json["generation"]?.int64Value, let files = json["files"]?.arrayValue
        else { throw .unreadableManifest("a member is missing") }
        guard format <= Self.currentFormat else { throw .unreadableManifest("format \(format) is newer than this Outpost's \(Self.currentFormat)") }
        var listed: [File] = []
        for file in files {
            guard let path = file["path"]?.stringValue, let size = file["size"]?.int64Value, let sha256 = file["sha256"]?.stringValue,
                Self.isSafe(path)
            else { throw .unreadableManifest("a file entry is malformed") }
            listed.append(File(path: path, size: size, sha256: sha256))
        }
        self.init(
            format: Int(format), createdAt: createdAt, store: StoreIdentity(id: storeId, epoch: epoch), generation: generation,
            migrations: json["migrations"]?.arrayValue?.compactMap(\.stringValue) ?? [], files: listed)
    }

    /// A listed path stays inside the backup folder: relative, no `..`, no empty parts.
    static func isSafe(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        // No control character: C calls stop at a NUL, so `..\0/x` would name `..` (FuzzBackupManifest).
        guard !path.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return false }
        return !path.hasPrefix("/") && !parts.isEmpty && parts.allSatisfy { !$0.isEmpty && $0 != ".." && $0 != "." }
    }

    /// Checks every listed file of the backup at `folder` against its size and checksum; each
    /// must be a plain file reached through plain folders (a link, even one that checks out,
    /// would be copied as a link pointing out of the backup).
    public func verify(folder: String) throws(BackupFailure) {
        for file in files {
            try Self.checkPlain(file.path, in: folder)
            let path = (folder as NSString).appendingPathComponent(file.path)
            let found: (size: Int64, sha256: String)
            do { found = try Self.digest(ofFileAt: path) } catch { throw .missingFile(file.path) }
            guard found.size == file.size, found.sha256 == file.sha256 else { throw .checksumMismatch(file.path) }
        }
    }

    /// Refuses a relative path under `root` that is not a regular file, or whose folders are
    /// not plain folders (`lstat`, which never follows a link).
    public static func checkPlain(_ relative: String, in root: String) throws(BackupFailure) {
        var path = root
        let parts = relative.split(separator: "/")
        for (index, part) in parts.enumerated() {
            path = (path as NSString).appendingPathComponent(String(part))
            var status = stat()
            guard lstat(path, &status) == 0 else { throw .missingFile(relative) }
            let kind = status.st_mode & S_IFMT
            guard kind == (index == parts.count - 1 ? S_IFREG : S_IFDIR) else { throw .notAPlainFile(relative) }
        }
    }

    /// The size and hex SHA-256 of a file, read in 1 MiB pieces into one buffer (memory stays
    /// flat). For files another process may change or a failing disk may not give back (a
    /// restore's check): a read error comes back as `BackupFailure.fileSystem`.
    public static func digest(ofFileAt path: String) throws -> (size: Int64, sha256: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BackupFailure.missingFile(path) }
        defer { close(descriptor) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var hasher = SHA256()
        var size: Int64 = 0
        while true {
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw BackupFailure.fileSystem(path: path, errno: errno)
            }
            if count == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            size += Int64(count)
        }
        return (size, hex(hasher.finalize()))
    }

    /// Bytes hashed per piece of a mapped file: each is handed back to the kernel once hashed.
    static let mappedPiece = 8 << 20

    /// `digest(ofFileAt:)` of a file this process has just written and nobody else changes (a
    /// backup's own copies), hashed through a read-only memory map, each 8 MiB piece handed back
    /// once hashed (resident memory stays flat). Copying the pages out of the page cache cost
    /// as much as hashing them (a backup's profile: `_copy_to_iter` 14 %, SHA-256 16 %). Only
    /// for such files: a mapped file that shrinks or cannot be read raises SIGBUS, not an error.
    public static func digest(ofOwnFileAt path: String) throws -> (size: Int64, sha256: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BackupFailure.missingFile(path) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw BackupFailure.fileSystem(path: path, errno: errno) }
        var hasher = SHA256()
        let size = Int(status.st_size)
        if size > 0 {
            guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED else {
                throw BackupFailure.fileSystem(path: path, errno: errno)
            }
            defer { munmap(address, size) }
            _ = madvise(address, size, MADV_SEQUENTIAL)
            for offset in stride(from: 0, to: size, by: mappedPiece) {
                let count = min(mappedPiece, size - offset)
                hasher.update(bufferPointer: UnsafeRawBufferPointer(start: address + offset, count: count))
                _ = madvise(address + offset, count, MADV_DONTNEED)
            }
        }
        return (Int64(size), hex(hasher.finalize()))
    }

    private static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}

/// A store's lasting identity and how many times it was restored from a backup: a replica
/// file, a backup and a log line can say which store, and which life of it, they belong to.
public struct StoreIdentity: Sendable, Equatable {
    public var id: String
    /// 0 for a store never restored; each restore adds one.
    public var epoch: Int64

    public init(id: String, epoch: Int64) {
        self.id = id
        self.epoch = epoch
    }
}

/// Why a backup could not be taken or restored; nothing was changed.
public enum BackupFailure: Error, Equatable, CustomStringConvertible {
    case notABackup(String)
    case unreadableManifest(String)
    case missingFile(String)
    case checksumMismatch(String)
    case liveFolder(String)
    /// The restore's target exists and is not a folder (a file, a link): it is never replaced.
    case notAFolder(String)
    /// A listed path is a link, or passes through one: a backup holds plain files only.
    case notAPlainFile(String)
    case integrity(String)
    /// Reading or writing `path` failed with `errno`.
    case fileSystem(path: String, errno: Int32)
    case unsupported(String)

    public var description: String {
        switch self {
        case .notABackup(let path): "\(path) is no Outpost backup: it has no \(BackupManifest.fileName)"
        case .unreadableManifest(let reason): "the backup's manifest is unreadable: \(reason)"
        case .missingFile(let path): "the backup lacks \(path)"
        case .checksumMismatch(let path): "\(path) does not match its checksum: the backup is damaged"
        case .liveFolder(let path): "\(path) already holds data; restore into a new folder (move this one aside first)"
        case .notAFolder(let path): "\(path) exists and is not a folder; restore into a new or empty folder"
        case .notAPlainFile(let path): "\(path) is a link or lies under one: a backup holds plain files only"
        case .integrity(let report): "the restored database fails its integrity check: \(report)"
        case .fileSystem(let path, let code): "\(path): \(String(cString: strerror(code)))"
        case .unsupported(let what): what
        }
    }
}

extension BackupFailure {
    /// A flush that failed, as a backup's failure.
    public init(_ failure: DurableFiles.Failure) { self = .fileSystem(path: failure.path, errno: failure.errno) }
}

/// Which backups `--keep N` removes: the oldest beyond the newest `keep`, by name (names
/// begin with their UTC time, so they sort by age).
public enum BackupRotation {
    public static func expired(_ names: [String], keep: Int) -> [String] {
        let backups = names.filter { $0.hasPrefix(prefix) }.sorted()
        return Array(backups.dropLast(max(keep, 1)))
    }

    public static let prefix = "outpost-backup-"

    /// `outpost-backup-20261126T083000.123Z`: the snapshot's UTC time to the millisecond.
    public static func name(at milliseconds: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss.SSS'Z'"
        return prefix + formatter.string(from: date)
    }
}
