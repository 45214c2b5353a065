import Foundation

/// A blob store read as files, which is how attachments are streamed and result files served:
/// a local folder's objects in place, a remote store's downloaded into `cacheDirectory` once.
///
/// A cached copy is never stale because the objects read through here are written once under
/// a fresh key and never changed (an attachment update writes a new key; result files and
/// committed uploads have fresh names). A copy idle for a day is swept (`sweepCache`).
public struct BlobFiles: Sendable {
    public let store: any BlobStore
    /// This process's own folder for copies of remote objects.
    public let cacheDirectory: String
    /// Whether objects are elsewhere than this machine's disk (read through the cache).
    public let isRemote: Bool

    public init(store: any BlobStore, cacheDirectory: String) {
        self.store = store
        self.cacheDirectory = cacheDirectory
        isRemote = (try? store.localPath("probe")) == nil
    }

    /// Objects as files under `directory` (the embedded default), read in place.
    public static func folder(_ directory: String) -> BlobFiles {
        BlobFiles(store: LocalDirectoryBlobStore(directory: directory), cacheDirectory: (directory as NSString).appendingPathComponent("cache"))
    }

    /// A file holding the object's bytes: the object itself in a local folder, else a cached
    /// copy, downloaded now if this process has none. `BlobStoreError.notFound` when absent.
    public func file(_ key: String) throws -> String {
        if let local = try store.localPath(key) {
            guard FileManager.default.fileExists(atPath: local) else { throw BlobStoreError.notFound(key) }
            return local
        }
        try BlobKey.check(key)
        let cached = (cacheDirectory as NSString).appendingPathComponent(key)
        if FileManager.default.fileExists(atPath: cached) {
            // Its use restarts its idle clock in the cache.
            try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: cached)
            return cached
        }
        try FileManager.default.createDirectory(atPath: (cached as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try store.download(key, to: cached)
        return cached
    }

    /// A private copy of the object at `path`, for a caller that takes the file over.
    public func copy(_ key: String, to path: String) throws {
        if let local = try store.localPath(key) {
            do { try FileManager.default.copyItem(atPath: local, toPath: path) } catch {
                throw FileManager.default.fileExists(atPath: local) ? BlobStoreError.failed("\(error)") : BlobStoreError.notFound(key)
            }
        } else {
            try store.download(key, to: path)
        }
    }

    /// Deletes the object and this process's cached copy of it (other processes' copies age
    /// out unread: no row or name leads to them any more). A missing object is no error.
    public func delete(_ key: String) throws {
        try store.delete(key)
        guard isRemote else { return }
        try? FileManager.default.removeItem(atPath: (cacheDirectory as NSString).appendingPathComponent(key))
    }

    /// Removes cached copies unused for `idleTime`; returns how many went.
    @discardableResult
    public func sweepCache(idleTime: TimeInterval = 86_400, now: Date = Date()) -> Int {
        guard isRemote, let walker = FileManager.default.enumerator(atPath: cacheDirectory) else { return 0 }
        var removed = 0
        while let relative = walker.nextObject() as? String {
            let path = (cacheDirectory as NSString).appendingPathComponent(relative)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path), attributes[.type] as? FileAttributeType == .typeRegular,
                let modified = attributes[.modificationDate] as? Date, now.timeIntervalSince(modified) > idleTime
            else { continue }
            if (try? FileManager.default.removeItem(atPath: path)) != nil { removed += 1 }
        }
        return removed
    }
}
