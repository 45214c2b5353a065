import Foundation
import OutpostGeometry
import OutpostWire
import Testing

@testable import OutpostClient

/// `Geodatabase.open(maximumBytes:)`, what the map-area packager merges a user's package file
/// under (issue 43): writes that would grow the file past the bound fail, whatever its schema.
@Suite struct GeodatabaseSizeLimitTests {
    @Test func writesPastTheBoundFailAndTheFileStaysWithinIt() async throws {
        try await withLiveServer { url, _, device in
            let task = GeodatabaseSyncTask(url: url)
            let path = "\(device)/bounded.gpkg"
            try await generateTrees(task, to: path).close()
            let size = try #require((try FileManager.default.attributesOfItem(atPath: path))[.size] as? NSNumber).intValue
            let bounded = try Geodatabase.open(path, maximumBytes: size + 64 * 1024)
            defer { bounded.close() }
            let trees = try bounded.featureTable(layerId: 2)
            let padding = String(repeating: "p", count: 4_000)
            #expect(throws: (any Error).self) {
                for i in 0..<200 {
                    _ = try bounded.add(
                        LocalFeature(attributes: ["species": .string("\(i) \(padding)")], geometry: .point(Point(x: 13.2, y: 52.4))), to: trees)
                }
            }
            bounded.close()
            let after = try #require((try FileManager.default.attributesOfItem(atPath: path))[.size] as? NSNumber).intValue
            #expect(after <= size + 64 * 1024 + 4096, "\(after) bytes after, \(size) before")
        }
    }
}
