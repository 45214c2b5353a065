import Foundation
import GRDB
import OutpostGeometry
import OutpostService
import OutpostSpatiaLite
import OutpostStorage
import OutpostWire

/// The demo services `outpost serve` seeds into an empty data folder.
///
/// `Demo` (non-versioned): 0 Cities (Natural Earth points, with attachments), 1 Countries
/// (Natural Earth polygons), 2 Trees (2,500 generated points, more than one query page),
/// 3 Inspections (a table related to Cities by the city's GlobalID).
/// `Parcels` (versioned): 0 Parcels, a generated grid of polygons in Web Mercator.
/// Generated rows come from a fixed-seed generator, so every seed is identical, on every
/// backend (on PostgreSQL the Cities' notes are added as attachment edits).
public enum DemoData {
    public static let serviceNames = ["Demo", "Parcels"]
    /// The demo's locator, of the Demo service's cities by name.
    public static let locatorName = "DemoPlaces"

    /// Seeds the demo services into a new store, once (`StoreFlag.demoSeeded`): never into a
    /// store that holds services or tile sets, which is marked so at its first start whatever
    /// `seeding` says, so an organisation that deletes all its services (even one that began
    /// with `--no-demo` or an import) does not get the demo at its next start. Whether it seeded.
    @discardableResult
    public static func seedIfNew(
        _ store: some OutpostBackend, seeding: Bool = true, testdataDirectory: @autoclosure () throws -> String
    ) throws -> Bool {
        guard try !store.maintenance.isSet(.demoSeeded) else { return false }
        guard try store.catalog().services.isEmpty, try store.tiles.tileSets().isEmpty else {
            try store.maintenance.set(.demoSeeded)
            return false
        }
        guard seeding else { return false }
        try seed(store, testdataDirectory: try testdataDirectory())
        try store.maintenance.set(.demoSeeded)
        return true
    }

    public static func seed(_ store: some OutpostBackend, testdataDirectory: String) throws {
        let cities = try readGeoJSON((testdataDirectory as NSString).appendingPathComponent("naturalearth_cities.geojson"))
        let countries = try readGeoJSON((testdataDirectory as NSString).appendingPathComponent("naturalearth_countries.geojson"))
        var random = SeededGenerator(seed: 20_261_122)

        let editFields = LayerDefinition.EditFieldsInfo()
        let tracking = [
            FieldDefinition(name: editFields.creationDateField, type: .date, editable: false),
            FieldDefinition(name: editFields.creatorField, type: .string, length: 128, editable: false),
            FieldDefinition(name: editFields.editDateField, type: .date, editable: false),
            FieldDefinition(name: editFields.editorField, type: .string, length: 128, editable: false),
        ]
        let citiesLayer = LayerDefinition(
            id: 0, name: "Cities", kind: .featureLayer, description: "Natural Earth populated places",
            geometryType: .point, spatialReference: .wgs84,
            fields: LayerDefinition.withSystemFields(
                [
                    FieldDefinition(name: "name", type: .string, alias: "Name", length: 80),
                    FieldDefinition(name: "rank", type: .integer, alias: "Rank"),
                ] + tracking),
            displayField: "name", hasAttachments: true,
            relationships: [
                RelationshipDefinition(
                    id: 0, name: "City inspections", relatedTableId: 3, cardinality: .oneToMany,
                    role: .origin, keyField: "GlobalID")
            ],
            editFieldsInfo: editFields, maxRecordCount: 2000)
        let countriesLayer = LayerDefinition(
            id: 1, name: "Countries", kind: .featureLayer, description: "Natural Earth 1:110m countries",
            geometryType: .polygon, spatialReference: .wgs84,
            fields: LayerDefinition.withSystemFields([
                FieldDefinition(name: "name", type: .string, alias: "Name", length: 80),
                FieldDefinition(name: "iso_a3", type: .string, alias: "ISO code", length: 3),
                FieldDefinition(name: "continent", type: .string, alias: "Continent", length: 40),
                FieldDefinition(name: "pop_est", type: .double, alias: "Population estimate"),
                FieldDefinition(name: "gdp_md_est", type: .double, alias: "GDP (million USD)"),
            ]),
            displayField: "name", maxRecordCount: 2000)
        let treesLayer = LayerDefinition(
            id: 2, name: "Trees", kind: .featureLayer, description: "Generated street trees around Berlin",
            geometryType: .point, spatialReference: .wgs84,
            fields: LayerDefinition.withSystemFields([
                FieldDefinition(name: "species", type: .string, alias: "Species", length: 64),
                // Domains, as field apps know them from ArcGIS: a range and a pick list.
                FieldDefinition(
                    name: "height_m", type: .double, alias: "Height (m)",
                    domain: FieldDomain.range(name: "TreeHeight", minimum: 0, maximum: 150).json),
                FieldDefinition(name: "planted", type: .date, alias: "Planted"),
                FieldDefinition(
                    name: "healthy", type: .smallInteger, alias: "Healthy",
                    domain: FieldDomain.codedValue(
                        name: "YesNo", codes: [.init(name: "No", code: 0), .init(name: "Yes", code: 1)]
                    ).json),
            ]),
            displayField: "species", maxRecordCount: 1000)
        let inspectionsTable = LayerDefinition(
            id: 3, name: "Inspections", kind: .table, description: "Generated inspections of cities",
            geometryType: nil, spatialReference: .wgs84,
            fields: LayerDefinition.withSystemFields([
                FieldDefinition(name: "CityGlobalID", type: .guid, alias: "City"),
                FieldDefinition(name: "inspector", type: .string, alias: "Inspector", length: 64),
                FieldDefinition(name: "inspected", type: .date, alias: "Inspected"),
                FieldDefinition(name: "score", type: .integer, alias: "Score"),
                FieldDefinition(name: "notes", type: .string, alias: "Notes", length: 500),
            ]),
            displayField: "inspector",
            relationships: [
                RelationshipDefinition(
                    id: 0, name: "City inspections", relatedTableId: 0, cardinality: .oneToMany,
                    role: .destination, keyField: "CityGlobalID")
            ],
            maxRecordCount: 2000)
        _ = try store.schema.createService(
            ServiceDefinition(
                name: "Demo", description: "Outpost demo service: Natural Earth places and countries with generated data.",
                spatialReference: .wgs84, maxRecordCount: 2000,
                layers: [citiesLayer, countriesLayer, treesLayer, inspectionsTable]))

        let now = Int64(1_763_769_600_000)  // 2025-11-22, fixed so seeds are identical
        var cityRows: [FeatureRow] = []
        for (index, city) in cities.enumerated() {
            cityRows.append(
                FeatureRow(
                    attributes: [
                        "name": city.properties["name"] ?? .null, "rank": .int(Int64(index + 1)),
                        "CreationDate": .int(now), "Creator": "outpost-seed", "EditDate": .int(now), "Editor": "outpost-seed",
                    ], geometry: city.geometry))
        }
        try store.edits.insert(cityRows, service: "Demo", layer: 0)
        // A place locator over the cities: rest/services/DemoPlaces/GeocodeServer.
        try LocatorBuilder.build(
            LocatorDefinition(name: locatorName, service: "Demo", layer: 0, kind: .place, fields: .init(placeName: "name")), in: store)

        var countryRows: [FeatureRow] = []
        for country in countries {
            var attributes: [String: JSONValue] = [:]
            for key in ["name", "iso_a3", "continent", "pop_est", "gdp_md_est"] { attributes[key] = country.properties[key] ?? .null }
            countryRows.append(FeatureRow(attributes: attributes, geometry: country.geometry))
        }
        try store.edits.insert(countryRows, service: "Demo", layer: 1)

        let species = [
            "Tilia cordata", "Acer platanoides", "Quercus robur", "Platanus x hispanica", "Aesculus hippocastanum",
            "Betula pendula", "Robinia pseudoacacia", "Fraxinus excelsior",
        ]
        var treeRows: [FeatureRow] = []
        for _ in 0..<2500 {
            let x = 13.2 + random.nextDouble() * 0.4
            let y = 52.4 + random.nextDouble() * 0.2
            treeRows.append(
                FeatureRow(
                    attributes: [
                        "species": .string(species[Int(random.next() % UInt64(species.count))]),
                        "height_m": .double((random.nextDouble() * 300).rounded() / 10 + 2),
                        "planted": .int(now - Int64(random.next() % (60 * 365)) * 86_400_000),
                        "healthy": .int(random.nextDouble() < 0.85 ? 1 : 0),
                    ], geometry: .point(Point(x: (x * 1e6).rounded() / 1e6, y: (y * 1e6).rounded() / 1e6))))
        }
        try store.edits.insert(treeRows, service: "Demo", layer: 2)

        var globalIDs = LayerQuery()
        globalIDs.outFields = ["GlobalID"]
        globalIDs.returnGeometry = false
        globalIDs.orderBy = [("OBJECTID", true)]
        guard case .features(let page) = try store.features.query(globalIDs, service: "Demo", layer: 0) else {
            throw StoreError.importFailed("the demo cities could not be read back")
        }
        let column = page.fields.firstIndex { $0.name == "GlobalID" } ?? 0
        let cityGlobalIDs = page.features.compactMap { $0.attributes[column].stringValue }
        let inspectors = ["A. Okafor", "B. Lindqvist", "C. Moreau", "D. Tanaka", "E. Silva"]
        var inspectionRows: [FeatureRow] = []
        for index in 0..<600 {
            let city = cityGlobalIDs[Int(random.next() % UInt64(cityGlobalIDs.count))]
            inspectionRows.append(
                FeatureRow(attributes: [
                    "CityGlobalID": .string(city),
                    "inspector": .string(inspectors[index % inspectors.count]),
                    "inspected": .int(now - Int64(random.next() % 1000) * 86_400_000),
                    "score": .int(Int64(random.next() % 101)),
                    "notes": index % 7 == 0 ? "Follow-up needed" : .null,
                ]))
        }
        try store.edits.insert(inspectionRows, service: "Demo", layer: 3)

        // A few attachments so the attachment resources have something to show.
        var generator = SeededGenerator(seed: 7)
        let notes = cityGlobalIDs.prefix(5).enumerated().map { index, city in
            (
                globalId: GlobalID.make(using: &generator), city: city, name: "note-\(index + 1).txt",
                text: Array("Field note \(index + 1) for city \(city)\n".utf8)
            )
        }
        if let store = store as? SpatiaLiteBackend {
            // SpatiaLite: straight into the attachment table (bytes inline, no edit generation),
            // as this backend's demo has always been seeded.
            guard let table = try store.service(named: "Demo").layers.first(where: { $0.definition.id == 0 })?.attachmentTable else {
                throw StoreError.importFailed("the demo cities' layer is missing")
            }
            try store.write { db in
                for note in notes {
                    try db.execute(
                        sql:
                            "INSERT INTO \(table)(GLOBALID, REL_GLOBALID, CONTENT_TYPE, ATT_NAME, DATA_SIZE, DATA) VALUES (?, ?, 'text/plain', ?, ?, ?)",
                        arguments: [note.globalId, note.city, note.name, note.text.count, Data(note.text)])
                }
            }
        } else {
            // Another backend: the same notes as attachment edits.
            let adds = notes.map {
                AttachmentEdit(globalId: $0.globalId, parentGlobalId: $0.city, name: $0.name, contentType: "text/plain", source: .data($0.text))
            }
            _ = try store.edits.applyEdits(
                service: "Demo", edits: [LayerEdits(layerId: 0, attachments: AttachmentEdits(adds: adds))],
                options: EditOptions(rollbackOnFailure: true, useGlobalIds: true))
        }

        let parcelLayer = LayerDefinition(
            id: 0, name: "Parcels", kind: .featureLayer, description: "Generated land parcels (Web Mercator)",
            geometryType: .polygon, spatialReference: .webMercator,
            fields: LayerDefinition.withSystemFields(
                [
                    FieldDefinition(name: "parcel_id", type: .string, alias: "Parcel", length: 16),
                    FieldDefinition(name: "owner", type: .string, alias: "Owner", length: 64),
                    FieldDefinition(name: "zoning", type: .string, alias: "Zoning", length: 16),
                    FieldDefinition(name: "area_m2", type: .double, alias: "Area (m²)"),
                ] + tracking),
            displayField: "parcel_id", hasAttachments: true, editFieldsInfo: editFields, maxRecordCount: 2000)
        _ = try store.schema.createService(
            ServiceDefinition(
                name: "Parcels", description: "Outpost demo of a versioned service (per-replica sync).", isVersioned: true,
                spatialReference: .webMercator, maxRecordCount: 2000, layers: [parcelLayer]))
        let zones = ["R1", "R2", "C1", "I1", "OS"]
        var parcelRows: [FeatureRow] = []
        let originX = 1_490_000.0
        let originY = 6_890_000.0
        let size = 50.0
        for row in 0..<20 {
            for column in 0..<20 {
                let x0 = originX + Double(column) * size
                let y0 = originY + Double(row) * size
                let ring = [
                    Point(x: x0, y: y0), Point(x: x0 + size, y: y0), Point(x: x0 + size, y: y0 + size),
                    Point(x: x0, y: y0 + size), Point(x: x0, y: y0),
                ]
                parcelRows.append(
                    FeatureRow(
                        attributes: [
                            "parcel_id": .string("P-\(row * 20 + column + 1)"),
                            "owner": .string("Owner \(Int(random.next() % 150) + 1)"),
                            "zoning": .string(zones[Int(random.next() % UInt64(zones.count))]),
                            "area_m2": .double(size * size),
                            "CreationDate": .int(now), "Creator": "outpost-seed", "EditDate": .int(now), "Editor": "outpost-seed",
                        ], geometry: .multiPolygon([[ring]])))
            }
        }
        try store.edits.insert(parcelRows, service: "Parcels", layer: 0)
        try seedTiles(store, testdataDirectory: testdataDirectory)
        try seedMap(store)
    }

    struct SourceFeature {
        var properties: JSONObject
        var geometry: OGCGeometry?
    }

    static func readGeoJSON(_ path: String) throws -> [SourceFeature] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StoreError.importFailed("demo data missing: \(path)")
        }
        var features: [SourceFeature] = []
        _ = try JSONParser.parseStreaming(bytes: [UInt8](data), arrayKey: "features") { feature in
            features.append(
                SourceFeature(
                    properties: feature["properties"]?.objectValue ?? [:],
                    geometry: try feature["geometry"].flatMap { try GeoJSONGeometry.decode($0) }))
        }
        return features
    }
}
