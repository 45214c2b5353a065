import OutpostGeometry
import OutpostStorage
import OutpostSync
import OutpostTestSupport
import OutpostWire
import Testing

/// Bulk loads (import, demo data) read rows the same way on every backend (`BulkLoadRows`)
/// and answer each row's OBJECTID in the rows' order, on the small path and on the large one
/// (SpatiaLite's packed R*Tree, PostgreSQL's rebuilt indexes).
@Suite struct BulkLoadContractTests {
    /// OBJECTID → (GlobalID, label) of every feature.
    static func features(_ store: some SyncBackend) throws -> [Int64: (globalId: String, label: String?)] {
        var query = LayerQuery()
        query.outFields = ["GlobalID", "label"]
        query.returnGeometry = false
        var found: [Int64: (globalId: String, label: String?)] = [:]
        while true {
            query.resultOffset = found.count
            guard case .features(let page) = try store.features.query(query, service: Contract.service, layer: 0) else { break }
            for feature in page.features {
                guard let objectId = feature.attributes[0].int64Value, let globalId = feature.attributes[1].stringValue else { continue }
                found[objectId] = (globalId, feature.attributes[2].stringValue)
            }
            if !page.exceededTransferLimit { break }
        }
        return found
    }

    @Test(arguments: SyncContractBackend.all, [10, 12_000])
    func eachRowIsAnsweredWithItsObjectIdAndGlobalIdsAreKeptCanonicalOrDrawn(_ backend: SyncContractBackend, count: Int) throws {
        let (store, _) = try backend.fresh()
        let given = GlobalID.make()
        let plain = String(given.dropFirst().dropLast()).lowercased()
        let rows = (0..<count).map { n -> FeatureRow in
            var attributes: [String: JSONValue] = ["Label": .string("r\(n)"), "value": .string("\(n)")]
            if n == 3 { attributes = ["LABEL": .string("r\(n)"), "globalid": .string(plain)] }
            return FeatureRow(attributes: attributes, geometry: .point(Point(x: Double(n % 100), y: Double(n / 100))))
        }
        let ids = try store.edits.insert(rows, service: Contract.service, layer: 0)
        let stored = try Self.features(store)
        #expect(ids.count == count && stored.count == count)
        for (index, id) in ids.enumerated() where stored[id]?.label != "r\(index)" {
            Issue.record("row \(index) answered \(id), which holds \(String(describing: stored[id]))")
            break
        }
        #expect(stored[ids[3]]?.globalId == given, "a GlobalID in any spelling is stored canonical")
        #expect(Set(stored.values.map(\.globalId)).count == count, "drawn GlobalIDs are distinct")
    }

    @Test(arguments: SyncContractBackend.all)
    func aRowTheLayerCannotHoldRefusesTheWholeLoad(_ backend: SyncContractBackend) throws {
        let (store, _) = try backend.fresh()
        let good = FeatureRow(attributes: ["label": .string("fine")], geometry: .point(Point(x: 1, y: 1)))
        let refused: [FeatureRow] = [
            FeatureRow(attributes: ["colour": .string("red")]),
            FeatureRow(attributes: ["GlobalID": .string("not a guid")]),
            FeatureRow(attributes: ["value": .string("many")]),
        ]
        for bad in refused {
            #expect(throws: StoreError.self) { try store.edits.insert([good, good, bad], service: Contract.service, layer: 0) }
        }
        #expect(try Self.features(store).isEmpty, "nothing of a refused load is written")
    }
}
