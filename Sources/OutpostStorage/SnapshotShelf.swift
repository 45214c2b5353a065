import Foundation

/// Where a data folder keeps its snapshots: `<data>/snapshots/<name>/`, each with a
/// `snapshot.txt` (backend and time saved) written last, the files (`files/`) and, on
/// SpatiaLite, the database (`store.sqlite`). A snapshot is built under a hidden name and
/// renamed into place, so a listed one is whole.
public struct SnapshotShelf: Sendable {
    public static let descriptionFile = "snapshot.txt"
    public static let filesFolder = "files"
    public let directory: String

    public init(data: String) {
        directory = (data as NSString).appendingPathComponent("snapshots")
    }

    public func folder(of name: SnapshotName) -> String { (directory as NSString).appendingPathComponent(name.text) }

    /// A new hidden folder to build a snapshot in (`publish` names it).
    public func makePartial(_ name: SnapshotName) throws -> String {
        let partial = (directory as NSString).appendingPathComponent(".partial-\(name.text)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: partial, withIntermediateDirectories: true)
        return partial
    }

    /// Describes the snapshot built in `partial` and puts it in place of any of that name.
    public func publish(_ partial: String, name: SnapshotName, backend: String, created: Int64) throws {
        let text = "backend \(backend)\ncreated \(created)\n"
        try Data(text.utf8).write(
            to: URL(fileURLWithPath: (partial as NSString).appendingPathComponent(Self.descriptionFile)), options: .atomic)
        let target = folder(of: name)
        let old = (directory as NSString).appendingPathComponent(".old-\(name.text)-\(UUID().uuidString)")
        if FileManager.default.fileExists(atPath: target) { try FileManager.default.moveItem(atPath: target, toPath: old) }
        try FileManager.default.moveItem(atPath: partial, toPath: target)
        try? FileManager.default.removeItem(atPath: old)
    }

    /// The backend and time a snapshot folder (anywhere) was saved with; nil when it is none.
    public static func describe(_ folder: String) -> (backend: String, created: Int64)? {
        guard let text = try? String(contentsOfFile: (folder as NSString).appendingPathComponent(descriptionFile), encoding: .utf8) else {
            return nil
        }
        var values: [Substring: Substring] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { values[parts[0]] = parts[1] }
        }
        guard let backend = values["backend"], let created = values["created"].flatMap({ Int64($0) }) else { return nil }
        return (String(backend), created)
    }

    /// The snapshots kept, by name; `extraBytes` adds what a backend keeps elsewhere (rows).
    public func list(extraBytes: (SnapshotName) -> Int64 = { _ in 0 }) -> [SnapshotInfo] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.sorted().compactMap { text in
            guard let name = try? SnapshotName(text), let facts = Self.describe(folder(of: name)) else { return nil }
            return SnapshotInfo(name: text, created: facts.created, bytes: SnapshotFiles.size(of: folder(of: name)) + extraBytes(name))
        }
    }

    /// The saved folder of `name`, which must describe a snapshot.
    public func existing(_ name: SnapshotName) throws(SnapshotError) -> String {
        let path = folder(of: name)
        guard Self.describe(path) != nil else { throw .notFound(name.text) }
        return path
    }

    public func delete(_ name: SnapshotName) throws {
        let path = try existing(name)
        let doomed = (directory as NSString).appendingPathComponent(".deleted-\(name.text)-\(UUID().uuidString)")
        try FileManager.default.moveItem(atPath: path, toPath: doomed)
        try? FileManager.default.removeItem(atPath: doomed)
    }
}
