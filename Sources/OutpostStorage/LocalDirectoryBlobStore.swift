import Foundation

/// Objects as files under one folder (the embedded default): written under a temporary name
/// and renamed into place, so a reader sees a whole file or none; `ifAbsent` by `link(2)`,
/// which fails when the name is taken (no check-then-write race).
public struct LocalDirectoryBlobStore: BlobStore {
    public let directory: String

    /// The folder is made by the first put.
    public init(directory: String) {
        self.directory = directory
    }

    func path(_ key: String) throws -> String {
        try BlobKey.check(key)
        return (directory as NSString).appendingPathComponent(key)
    }

    public func put(_ key: String, bytes: [UInt8], ifAbsent: Bool) throws -> BlobInfo {
        let target = try path(key)
        let staged = try staging(for: target)
        guard FileManager.default.createFile(atPath: staged, contents: Data(bytes)) else { throw BlobStoreError.failed("cannot write \(staged)") }
        return try place(staged, at: target, key: key, ifAbsent: ifAbsent)
    }

    public func put(_ key: String, from file: String, ifAbsent: Bool) throws -> BlobInfo {
        let target = try path(key)
        let staged = try staging(for: target)
        do { try FileManager.default.moveItem(atPath: file, toPath: staged) } catch {
            throw BlobStoreError.failed("cannot take \(file): \(error)")
        }
        return try place(staged, at: target, key: key, ifAbsent: ifAbsent)
    }

    private func staging(for target: String) throws -> String {
        let folder = (target as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return (folder as NSString).appendingPathComponent(".\((target as NSString).lastPathComponent).\(UUID().uuidString).partial")
    }

    /// Renames (or, `ifAbsent`, links) the staged file into place, its bytes flushed before and
    /// the folder's entry after: the row that names the blob is committed, and synced, once
    /// this returns.
    private func place(_ staged: String, at target: String, key: String, ifAbsent: Bool) throws -> BlobInfo {
        defer { try? FileManager.default.removeItem(atPath: staged) }
        do { try DurableFiles.sync(staged) } catch { throw BlobStoreError.failed(error.description) }
        if ifAbsent {
            guard link(staged, target) == 0 else {
                if errno == EEXIST { throw BlobStoreError.exists(key) }
                throw BlobStoreError.failed("cannot write \(target): errno \(errno)")
            }
        } else {
            guard rename(staged, target) == 0 else { throw BlobStoreError.failed("cannot write \(target): errno \(errno)") }
        }
        do { try DurableFiles.syncFolders(of: target, upTo: directory) } catch { throw BlobStoreError.failed(error.description) }
        guard let info = try Self.info(at: target, key: key) else { throw BlobStoreError.notFound(key) }
        return info
    }

    public func get(_ key: String, range: ClosedRange<Int64>?) throws -> [UInt8] {
        let file = try path(key)
        guard let handle = FileHandle(forReadingAtPath: file) else { throw BlobStoreError.notFound(key) }
        defer { try? handle.close() }
        guard let range else { return Array(try handle.readToEnd() ?? Data()) }
        try handle.seek(toOffset: UInt64(range.lowerBound))
        return Array(try handle.read(upToCount: Int(range.upperBound - range.lowerBound + 1)) ?? Data())
    }

    public func download(_ key: String, to destination: String) throws -> BlobInfo {
        let file = try path(key)
        guard let info = try Self.info(at: file, key: key) else { throw BlobStoreError.notFound(key) }
        try? FileManager.default.removeItem(atPath: destination)
        do { try FileManager.default.copyItem(atPath: file, toPath: destination) } catch { throw BlobStoreError.failed("\(error)") }
        return info
    }

    public func info(_ key: String) throws -> BlobInfo? { try Self.info(at: try path(key), key: key) }

    public func delete(_ key: String) throws {
        let file = try path(key)
        if unlink(file) != 0 && errno != ENOENT { throw BlobStoreError.failed("cannot delete \(file): errno \(errno)") }
    }

    public func touch(_ key: String, modified: Int64) throws {
        let file = try path(key)
        let stamp = timespec(tv_sec: Int(modified / 1000), tv_nsec: Int(modified % 1000) * 1_000_000)
        let times = [stamp, stamp]
        guard utimensat(AT_FDCWD, file, times, 0) == 0 else {
            if errno == ENOENT { throw BlobStoreError.notFound(key) }
            throw BlobStoreError.failed("cannot touch \(file): errno \(errno)")
        }
    }

    public func localPath(_ key: String) throws -> String? { try path(key) }

    public func list(prefix: String) throws -> [BlobInfo] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        var found: [BlobInfo] = []
        while let relative = walker.nextObject() as? String {
            guard relative.hasPrefix(prefix), (try? BlobKey.check(relative)) != nil, !(relative as NSString).lastPathComponent.hasPrefix("."),
                let info = try Self.info(at: (directory as NSString).appendingPathComponent(relative), key: relative)
            else { continue }
            found.append(info)
        }
        return found.sorted { $0.key < $1.key }
    }

    static func info(at file: String, key: String) throws -> BlobInfo? {
        var status = stat()
        guard stat(file, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        let modified = Int64(status.st_mtim.tv_sec) * 1000 + Int64(status.st_mtim.tv_nsec) / 1_000_000
        return BlobInfo(key: key, size: Int64(status.st_size), modified: modified)
    }
}
