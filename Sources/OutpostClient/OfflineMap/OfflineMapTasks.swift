import Foundation
import OutpostWire

/// The tasks an offline map carries (docs/offline-map-format.md, "Tasks"): a `LocatorTask` for
/// each locator file and a `RouteTask` for each network file its `package.json` lists, opened
/// from the folder as untrusted files, answering with the network cut.
public struct OfflineMapTasks: Sendable {
    /// By the service's name (`…/services/<name>/GeocodeServer`).
    public let locatorTasks: [String: LocatorTask]
    /// By the service's name (`…/services/<name>/NAServer`).
    public let routeTasks: [String: RouteTask]
    /// The most bytes `package.json` may hold.
    static let maximumManifestBytes = 16 << 20

    public init(offlineMapDirectory directory: URL) throws {
        let manifestPath = directory.appendingPathComponent("package.json").path
        guard let size = Self.regularFileSize(manifestPath), size <= Self.maximumManifestBytes,
            let data = FileManager.default.contents(atPath: manifestPath),
            let manifest = try? JSONParser.parse(bytes: [UInt8](data)), manifest["format"] == "outpost-offline-map"
        else { throw ClientError.geodatabase("\(directory.path) is not an offline map (no package.json)") }
        var locators: [String: LocatorTask] = [:]
        var routes: [String: RouteTask] = [:]
        var opened = Set<String>()
        for entry in manifest["files"]?.arrayValue ?? [] {
            guard let kind = entry["kind"]?.stringValue, ["locator", "network"].contains(kind), let file = entry["file"]?.stringValue,
                opened.insert(file).inserted
            else { continue }
            guard opened.count <= Self.maximumTasks else { throw ClientError.geodatabase("package.json names more than \(Self.maximumTasks) tasks") }
            guard let name = Self.taskName(file, kind: kind) else { throw ClientError.geodatabase("package.json names \(file), not a task's file") }
            // The folder is anyone's: `tasks` and its files must be what they say, not links
            // (to a file elsewhere, or one larger than its link says) and not pipes.
            let tasks = directory.appendingPathComponent("tasks").path
            let path = directory.appendingPathComponent(file).path
            guard Self.fileType(tasks) == .typeDirectory, Self.regularFileSize(path) != nil else {
                throw ClientError.geodatabase("\(file) is not a plain file in the folder's tasks")
            }
            if kind == "locator" {
                locators[name] = try LocatorTask(locatorFile: path)
            } else {
                routes[name] = try RouteTask(networkFile: path)
            }
        }
        locatorTasks = locators
        routeTasks = routes
    }

    /// The most task files one offline map may name.
    static let maximumTasks = 64

    static func fileType(_ path: String) -> FileAttributeType? {
        // attributesOfItem does not follow a symbolic link: a link is `.typeSymbolicLink`.
        (try? FileManager.default.attributesOfItem(atPath: path))?[.type] as? FileAttributeType
    }

    /// The size of a regular file (not a link, pipe or device); nil for anything else.
    static func regularFileSize(_ path: String) -> Int? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path), attributes[.type] as? FileAttributeType == .typeRegular
        else { return nil }
        return (attributes[.size] as? NSNumber)?.intValue
    }

    /// `<name>` of `tasks/<name>.locator` (or `.network`); nil for any other path, so a
    /// manifest cannot point outside the folder.
    static func taskName(_ file: String, kind: String) -> String? {
        let prefix = "tasks/"
        let suffix = ".\(kind)"
        guard file.hasPrefix(prefix), file.hasSuffix(suffix), file.count > prefix.count + suffix.count else { return nil }
        let name = file.dropFirst(prefix.count).dropLast(suffix.count)
        return name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") } ? String(name) : nil
    }
}
