import Foundation
import OutpostWire
import Testing

@testable import OutpostServer

/// The matrix's requests for the administrative resources (`AuthorizationAdminRows`): a
/// layer's `addToDefinition` as every caller; only an admin's token adds the field (API keys
/// never), and a refused call adds nothing.
extension MatrixCase {
    static let adminServices = "/arcgis/rest/admin/services"

    static var adminCases: [MatrixCase] {
        [
            .post(
                "rest/admin/services/:service/FeatureServer/:layer/addToDefinition",
                make: { s, _ in addingField(s, "\(adminServices)/Demo/FeatureServer/2/addToDefinition") },
                happened: { s, p in try await layerHasField(s, "\(service)/2?f=json", p.object) }),
            .post(
                "rest/admin/services/:service/:serviceInFolder/FeatureServer/:layer/addToDefinition",
                make: { s, _ in addingField(s, "\(adminServices)/Field/Points/FeatureServer/0/addToDefinition") },
                happened: { s, p in try await layerHasField(s, "/arcgis/rest/services/Field/Points/FeatureServer/0?f=json", p.object) }),
        ]
    }

    /// A call adding a field of a new name (the probe's object).
    static func addingField(_ s: AuthorizationSession, _ path: String) -> Probe {
        let name = s.unique("matrix_field_")
        let definition = #"{"fields":[{"name":"\#(name)","type":"esriFieldTypeString","length":20,"nullable":true}]}"#
        return Probe(path: path, fields: [("f", "json"), ("addToDefinition", definition)], object: name)
    }

    static func layerHasField(_ s: AuthorizationSession, _ layer: String, _ name: String) async throws -> Bool {
        try await s.made(.get(layer), as: .admin)["fields"]?.arrayValue?.contains { $0["name"]?.stringValue == name } == true
    }
}
