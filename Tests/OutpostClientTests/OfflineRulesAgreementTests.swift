import OutpostSync
import OutpostWire
import Testing

@testable import OutpostClient

/// One set of offline rules: for every combination of a map's offline settings, a service
/// the client takes offline with the map's default parameters gets the replica SetupMapArea
/// packages for it (attachments, their direction, schema only), editable or not.
@Suite struct OfflineRulesAgreementTests {
    static let service = "https://h/arcgis/rest/services/Demo/FeatureServer"

    static var combinations: [JSONValue] {
        var all: [JSONValue] = []
        for download in ["none", "features", "featuresAndAttachments"] {
            for sync in ["uploadFeaturesAndAttachments", "syncFeaturesAndAttachments", "syncFeaturesUploadAttachments"] {
                for readOnly in [true, false] {
                    all.append([
                        "editableLayers": ["download": .string(download), "sync": .string(sync)],
                        "readonlyLayers": ["downloadAttachments": .bool(readOnly)],
                    ])
                }
            }
        }
        return all + [[:]]
    }

    @Test(arguments: combinations) func theClientsDefaultsTakeWhatAMapAreaPackages(_ offline: JSONValue) throws {
        let webMap: JSONValue = [
            "operationalLayers": [["id": "trees", "url": .string("\(Self.service)/0")]], "applicationProperties": ["offline": offline],
        ]
        let area = Envelope(xmin: 5, ymin: 45, xmax: 20, ymax: 56)
        for editable in [true, false] {
            var facts = OfflineServiceFacts(kind: .feature)
            facts.syncEnabled = true
            facts.editable = editable
            let parameters = GenerateOfflineMapParameters(defaultsFor: webMap, areaOfInterest: area)
            let replica = try #require(
                OfflineMapPlanner.plan(webMap: webMap, parameters: parameters, facts: [Self.service: facts]).geodatabases.first)
            let packages = PackagePlanner.plan(webMap: webMap, facts: [Self.service: PackagedServiceFacts(editable: editable)])
            guard case .features(let package) = try #require(packages.first) else { return #expect(Bool(false), "not a feature package") }
            #expect(replica.parameters.returnAttachments == package.returnAttachments, "editable: \(editable)")
            #expect(replica.parameters.attachmentsSyncDirection.rawValue == package.attachmentsSyncDirection, "editable: \(editable)")
            let schemaOnly = replica.parameters.layerOptions.allSatisfy { $0.queryOption == .none }
            #expect(schemaOnly == (package.layerQueries[0] == ["queryOption": "none"]), "editable: \(editable)")
        }
    }
}
