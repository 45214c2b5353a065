import Foundation
import OutpostStorage
import OutpostWire

/// A set's style resources, in a folder beside its MBTiles file (`<file>.resources/`),
/// replaced whole: copied to a temporary folder, then renamed into place.
extension MBTilesFolder {
    public func addStyleResources(file: String, from directory: String) throws -> [String] {
        let target = path(of: file) + ".resources"
        let staging = target + ".partial"
        let files = FileManager.default
        try? files.removeItem(atPath: staging)
        var kept: [String] = []
        for path in Self.styleResourcePaths(in: directory) {
            let destination = (staging as NSString).appendingPathComponent(path)
            try files.createDirectory(atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try files.copyItem(atPath: (directory as NSString).appendingPathComponent(path), toPath: destination)
            kept.append(path)
        }
        guard !kept.isEmpty else { throw TileSetFailure.unreadable("\(directory) holds no style resources (styles/root.json, sprites/, fonts/)") }
        try? files.removeItem(atPath: target)
        try files.moveItem(atPath: staging, toPath: target)
        return kept
    }

    /// The resources a folder holds, by their `StyleResources` paths.
    static func styleResourcePaths(in directory: String) -> [String] {
        let found = FileManager.default.enumerator(atPath: directory)?.compactMap { $0 as? String } ?? []
        // Regular files only: a link could lead anywhere on the machine.
        return found.filter { path in
            StyleResources.isValidPath(path)
                && (try? FileManager.default.attributesOfItem(atPath: (directory as NSString).appendingPathComponent(path))[.type]
                    as? FileAttributeType)
                    == .typeRegular
        }.sorted()
    }

    public func styleResource(file: String, path: String) throws -> [UInt8]? {
        guard StyleResources.isValidPath(path) else { return nil }
        let resource = (self.path(of: file) + ".resources/" as NSString).appendingPathComponent(path)
        return FileManager.default.contents(atPath: resource).map { [UInt8]($0) }
    }

    /// Removes a set's file and its resources (a listing that failed after the copy).
    /// The file's bytes and its style resources'.
    public func storedBytes(file: String) throws -> Int64 {
        let files = FileManager.default
        // Regular files only: a folder's own entry is not what it holds.
        func size(_ path: String) -> Int64 {
            guard let attributes = try? files.attributesOfItem(atPath: path), attributes[.type] as? FileAttributeType == .typeRegular else {
                return 0
            }
            return (attributes[.size] as? NSNumber)?.int64Value ?? 0
        }
        let resources = path(of: file) + ".resources"
        let inside = files.enumerator(atPath: resources)?.compactMap { $0 as? String } ?? []
        return size(path(of: file)) + inside.reduce(0) { $0 + size((resources as NSString).appendingPathComponent($1)) }
    }

    /// Removes a listed set's file and style resources, closing this process's readers of it
    /// first (a read under way keeps its connection until it ends; the file goes with it).
    public func discard(file: String) {
        readers.forget(path(of: file))
        remove(file: file)
    }

    public func remove(file: String) {
        try? FileManager.default.removeItem(atPath: path(of: file))
        try? FileManager.default.removeItem(atPath: path(of: file) + ".resources")
    }
}
