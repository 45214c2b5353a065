import Foundation

/// The files of a data folder a snapshot holds beside its rows: every top-level folder
/// (attachments, upload parts, result files, portal items, tile sets) but the process's own
/// scratch (`tmp`, `cache`) and the snapshots. Files are hard-linked, not copied: every writer
/// of these folders writes a new file under a temporary name and renames it into place
/// (`LocalDirectoryBlobStore`, `ItemFolder`, `MBTilesFolder`), never changing one in place, so
/// a link keeps the bytes it was made with. Across file systems they are copied.
public enum SnapshotFiles {
    /// Top-level entries of a data folder that are not state.
    static let excluded: Set<String> = ["tmp", "cache", "snapshots"]

    /// The folders of `data` that are state.
    public static func stateFolders(in data: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: data)) ?? []
        return names.filter { name in
            guard !name.hasPrefix("."), !excluded.contains(name) else { return false }
            var isDirectory: ObjCBool = false
            let path = (data as NSString).appendingPathComponent(name)
            return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
                && (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == nil
        }.sorted()
    }

    /// Links every state folder of `data` into `target` (made here); the bytes linked.
    @discardableResult
    public static func save(data: String, into target: String) throws -> Int64 {
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        var bytes: Int64 = 0
        for folder in stateFolders(in: data) {
            bytes += try link(
                (data as NSString).appendingPathComponent(folder), to: (target as NSString).appendingPathComponent(folder))
        }
        return bytes
    }

    /// Bytes of the regular files under `folder`.
    public static func size(of folder: String) -> Int64 {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return 0 }
        var bytes: Int64 = 0
        while walker.nextObject() != nil {
            let attributes = walker.fileAttributes
            if attributes?[.type] as? FileAttributeType == .typeRegular { bytes += (attributes?[.size] as? NSNumber)?.int64Value ?? 0 }
        }
        return bytes
    }

    /// Links the tree at `source` to `target` (which must not exist): folders made, regular
    /// files linked (copied across file systems), anything else left out. The bytes.
    static func link(_ source: String, to target: String) throws -> Int64 {
        let manager = FileManager.default
        try manager.createDirectory(atPath: target, withIntermediateDirectories: true)
        guard let walker = manager.enumerator(atPath: source) else { return 0 }
        var bytes: Int64 = 0
        while let relative = walker.nextObject() as? String {
            guard let type = walker.fileAttributes?[.type] as? FileAttributeType else { continue }
            let from = (source as NSString).appendingPathComponent(relative)
            let to = (target as NSString).appendingPathComponent(relative)
            if type == .typeDirectory {
                try manager.createDirectory(atPath: to, withIntermediateDirectories: true)
            } else if type == .typeRegular, !(relative as NSString).lastPathComponent.hasPrefix(".") {
                if Foundation.link(from, to) != 0 { try manager.copyItem(atPath: from, toPath: to) }
                bytes += (walker.fileAttributes?[.size] as? NSNumber)?.int64Value ?? 0
            }
        }
        return bytes
    }

    /// A snapshot's folders linked into a staging folder of `data`, ready to take the place
    /// of the live ones (`swap`), which the store does under its write lock.
    public struct Staged: Sendable {
        let data: String
        let staging: String
        let folders: [String]

        /// Puts the staged folders in place of the live ones and moves the live ones (and live
        /// folders the snapshot has not) aside; `discard` removes them afterwards.
        public func swap() throws {
            let manager = FileManager.default
            let aside = (staging as NSString).appendingPathComponent(".old")
            try manager.createDirectory(atPath: aside, withIntermediateDirectories: true)
            for folder in Set(folders).union(SnapshotFiles.stateFolders(in: data)).sorted() {
                let live = (data as NSString).appendingPathComponent(folder)
                if manager.fileExists(atPath: live) {
                    try manager.moveItem(atPath: live, toPath: (aside as NSString).appendingPathComponent(folder))
                }
                if folders.contains(folder) {
                    try manager.moveItem(atPath: (staging as NSString).appendingPathComponent(folder), toPath: live)
                }
            }
        }

        /// Removes the staging folder and what was moved aside.
        public func discard() { try? FileManager.default.removeItem(atPath: staging) }
    }

    /// Links the folders saved in `saved` (by `save`) into a staging folder inside `data`'s
    /// `tmp` (the same file system, so `swap` renames).
    public static func stage(_ saved: String, into data: String) throws -> Staged {
        let staging = ((data as NSString).appendingPathComponent("tmp") as NSString)
            .appendingPathComponent("snapshot-restore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        let folders = stateFolders(in: saved)
        do {
            for folder in folders {
                _ = try link((saved as NSString).appendingPathComponent(folder), to: (staging as NSString).appendingPathComponent(folder))
            }
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw error
        }
        return Staged(data: data, staging: staging, folders: folders)
    }
}
