import Foundation
import OutpostClient
import Testing

/// The table-centric API (docs/client.md, "Features"): typed attributes, async queries and
/// edits on `GeodatabaseFeatureTable`, dates as `Date`s on the device and epoch milliseconds
/// on the wire.
@Suite struct FeatureTableTests {
    @Test func aTableMakesQueriesUpdatesAndDeletesTypedFeaturesThatSync() async throws {
        try await withLiveServer { url, _, device in
            let task = GeodatabaseSyncTask(url: url)
            let geodatabase = try await generateTrees(task, to: "\(device)/typed.gpkg")
            defer { geodatabase.close() }
            let trees = try geodatabase.featureTable(layerId: 2)
            let before = try await trees.featureCount()
            let planted = Date(timeIntervalSince1970: 1_700_000_000)

            var oak = trees.makeFeature(attributes: ["species": "Typed oak", "HEIGHT_M": 7.25], geometry: .point(Point(x: 13.21, y: 52.41)))
            oak["planted"] = .date(planted)
            let added = try await trees.add(oak)
            let id = try #require(added.globalId)
            #expect(added.objectId != nil && id.hasPrefix("{"))
            #expect(added["height_m"] == .double(7.25), "field names match ignoring case")

            let found = try await trees.queryFeatures(whereClause: "species = 'Typed oak'")
            #expect(found.count == 1)
            #expect(found.first?["planted"] == .date(planted) && found.first?["species"].stringValue == "Typed oak")
            #expect(try await trees.featureCount() == before + 1)

            var taller = try #require(found.first)
            taller["height_m"] = 9.5
            try await trees.update(taller)
            #expect(try await trees.feature(globalId: id)?["height_m"] == .double(9.5))

            // Synced: the server holds the date as epoch milliseconds.
            try await sync(task, geodatabase)
            let onServer = try #require(try await serverTrees(task.connection).values.first { $0["species"] == "Typed oak" })
            #expect(onServer["planted"]?.int64Value == 1_700_000_000_000 && onServer["height_m"]?.doubleValue == 9.5)

            let synced = try #require(try await trees.feature(globalId: id))
            try await trees.delete(synced)
            #expect(try await trees.queryFeatures(whereClause: "species = 'Typed oak'").isEmpty)
            #expect(try geodatabase.localEditCount == 1)
            await #expect(throws: ClientError.self) { try await trees.delete(trees.makeFeature()) }
        }
    }
}
