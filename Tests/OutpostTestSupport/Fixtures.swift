import Foundation
import OutpostDataTools
import OutpostSpatiaLite
import OutpostSync
import OutpostWire

/// The fixtures the test targets share: the repository's test data, temporary folders that
/// are removed when the test process ends, and stores made in them.
public enum TestFolders {
    /// The repository's root folder.
    public static let repository: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The repository's `testdata` folder.
    public static let testdata = (repository as NSString).appendingPathComponent("testdata")

    /// One folder per test process; everything the tests make goes below it, and it is
    /// removed when the process exits.
    public static let root: String = {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("outpost-tests-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: TestFolders.root) }
        return root
    }()

    /// A new empty folder (named after `label`) below `root`.
    public static func make(_ label: String = "folder") -> String {
        let path = (root as NSString).appendingPathComponent("\(label)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A path below `root` that does not exist yet.
    public static func file(_ name: String) -> String {
        (root as NSString).appendingPathComponent("\(UUID().uuidString)-\(name)")
    }
}

/// A store in a fresh temporary folder.
public func makeTemporaryStore(clock: any WallClock = SystemClock()) throws -> SpatiaLiteBackend {
    try SpatiaLiteBackend(dataDirectory: TestFolders.make("store"), clock: clock)
}

/// A store in a fresh temporary folder, seeded with the demo services.
public func makeDemoStore(label: String = "demo", clock: any WallClock = SystemClock()) throws -> SpatiaLiteBackend {
    let store = try SpatiaLiteBackend(dataDirectory: TestFolders.make(label), clock: clock)
    try DemoData.seed(store, testdataDirectory: TestFolders.testdata)
    return store
}

/// The repository's testdata folder.
public let testdataDirectory = TestFolders.testdata

/// A service with one point layer (`label` text, `value` integer).
public func pointLayerService(name: String, wkid: Int = 4326, maxRecordCount: Int = 1000) -> ServiceDefinition {
    ServiceDefinition(
        name: name, spatialReference: SpatialReference(wkid: wkid), maxRecordCount: maxRecordCount,
        layers: [
            LayerDefinition(
                id: 0, name: "Points", kind: .featureLayer, geometryType: .point, spatialReference: SpatialReference(wkid: wkid),
                fields: LayerDefinition.withSystemFields([
                    FieldDefinition(name: "label", type: .string, length: 20),
                    FieldDefinition(name: "value", type: .integer),
                ]), maxRecordCount: maxRecordCount)
        ])
}
