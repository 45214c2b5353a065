import OutpostGeocoding
import OutpostStorage
import OutpostWire

/// A `GeocodeServer`'s description, as ArcGIS Server writes one: what the ArcGIS API for
/// Python's `Geocoder` reads (`singleLineAddressField`, `addressFields`,
/// `locatorProperties.MaxBatchSize`, `spatialReference`).
public enum LocatorInfo {
    public static func json(_ locator: StoredLocator, currentVersion: Double) -> JSONValue {
        func field(_ name: String, _ alias: String, length: Int = 100) -> JSONValue {
            [
                "name": .string(name), "type": "esriFieldTypeString", "alias": .string(alias), "required": false, "length": .int(Int64(length)),
                "localizedNames": [:], "recognizedNames": [:],
            ]
        }
        let candidateFields: [JSONValue] =
            [field("Loc_name", "Loc_name", length: 128), ["name": "Score", "type": "esriFieldTypeDouble", "alias": "Score"]]
            + ["Match_addr", "Addr_type", "AddNum", "StName", "City", "Postal", "Side", "Status"].map { field($0, $0) }
            + ["X", "Y", "DisplayX", "DisplayY"].map { ["name": .string($0), "type": "esriFieldTypeDouble", "alias": .string($0)] }
        return [
            "currentVersion": .double(currentVersion),
            "serviceDescription": .string(
                "\(locator.definition.kind.rawValue) locator built from \(locator.definition.service) layer \(locator.definition.layer) (\(locator.entryCount) entries)"
            ),
            "addressFields": [
                field("Address", "Address"), field("Address2", "Address2"), field("City", "City"), field("Postal", "ZIP", length: 40),
                field("Region", "State"),
            ],
            "singleLineAddressField": field("SingleLine", "Single Line Input", length: 200),
            "candidateFields": .array(candidateFields),
            "intersectionCandidateFields": [],
            "spatialReference": SpatialReference.wgs84.json,
            "locatorProperties": [
                "MaxBatchSize": .int(Int64(GeocodeRequest.maximumBatchSize)),
                "SuggestedBatchSize": .int(Int64(GeocodeRequest.maximumBatchSize)),
                "MaxResultSize": .int(Int64(GeocodeRequest.maximumLocations)),
                "SupportsSuggest": true,
            ],
            "capabilities": "Geocode,ReverseGeocode,Suggest",
        ]
    }
}
