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
        let size = (try? FileManager.default.attributesOfItem(atPath: manifestPath)[.size] as? Int) ?? nil
        guard let size, size <= Self.maximumManifestBytes, let data = FileManager.default.contents(atPath: manifestPath),
            let manifest = try? JSONParser.parse(bytes: [UInt8](data)), manifest["format"] == "outpost-offline-map"
        else { throw ClientError.geodatabase("\(directory.path) is not an offline map (no package.json)") }
        var locators: [String: LocatorTask] = [:]
        var routes: [String: RouteTask] = [:]
        for entry in manifest["files"]?.arrayValue ?? [] {
            guard let kind = entry["kind"]?.stringValue, ["locator", "network"].contains(kind), let file = entry["file"]?.stringValue else {
                continue
            }
            guard let name = Self.taskName(file, kind: kind) else { throw ClientError.geodatabase("package.json names \(file), not a task's file") }
            let path = directory.appendingPathComponent(file).path
            if kind == "locator" {
                locators[name] = try LocatorTask(locatorFile: path)
            } else {
                routes[name] = try RouteTask(networkFile: path)
            }
        }
        locatorTasks = locators
        routeTasks = routes
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
