import Foundation
import OutpostClient
import Testing

/// docs/client.md's Swift walkthrough, as written there, against a live server: if the
/// documented API changes, this stops compiling.
@Suite struct WalkthroughTests {
    @Test func theSwiftWalkthroughRuns() async throws {
        try await withLiveServer { serviceURL, _, device in
            let file = URL(fileURLWithPath: "\(device)/field.gpkg")
            // --- docs/client.md, "Walkthrough (Swift)" ---
            let task = GeodatabaseSyncTask(url: serviceURL)

            let parameters = try await task.makeDefaultGenerateGeodatabaseParameters(
                extent: Envelope(xmin: 13.2, ymin: 52.4, xmax: 13.26, ymax: 52.46))
            let generate = task.makeGenerateGeodatabaseJob(parameters: parameters, downloadFileURL: file)
            generate.start()
            var texts: [String] = []
            for await message in generate.messageStream { texts.append(message.text) }
            let geodatabase = try await generate.output

            let trees = try geodatabase.featureTable(layerId: 2)
            var tree = trees.makeFeature(attributes: ["species": "Tilia", "height_m": 4.5], geometry: .point(Point(x: 13.21, y: 52.41)))
            tree["planted"] = .date(Date())
            tree = try await trees.add(tree)
            tree["height_m"] = 5
            try await trees.update(tree)
            let tall = try await trees.queryFeatures(
                whereClause: "height_m > 20", envelope: Envelope(xmin: 13.2, ymin: 52.4, xmax: 13.23, ymax: 52.43))

            let sync = task.makeSyncGeodatabaseJob(
                parameters: try task.makeDefaultSyncGeodatabaseParameters(geodatabase: geodatabase), geodatabase: geodatabase)
            sync.start()
            let result = try await sync.output
            // --- end of the walkthrough ---
            defer { geodatabase.close() }
            #expect(texts.first == "started" && texts.last == "succeeded", "\(texts)")
            #expect(tall.allSatisfy { ($0["height_m"].doubleValue ?? 0) > 20 })
            #expect(result.editsUploaded == 1 && result.failedEdits.isEmpty)
            let saved = try sync.toJSON()
            #expect(try SyncGeodatabaseJob.fromJSON(saved).status == .succeeded)
        }
    }
}
