import Foundation
import OutpostStorage
import OutpostWire

/// The portal's `content/features/analyze` for CSV (docs/portal.md, "Publishing"): what
/// publish will make of a file, as the ArcGIS API for Python asks before it publishes one
/// (`Item.publish()` of a CSV item). Reads the file's first 64 KiB; changes nothing.
extension PublishingController {
    func analyze(_ c: OutpostRequestContext) throws -> JSONValue {
        let p = c.form.parameters
        let caller = portal.caller(c)
        guard caller.mayCreate(for: c.user?.name ?? "") else { throw ArcGISError.forbidden }
        let fileType = p.string("fileType") ?? p.string("filetype") ?? "csv"
        guard fileType.caseInsensitiveCompare("csv") == .orderedSame else {
            throw ArcGISError.invalidParameter("fileType", "Only CSV files are analyzed here; publish the others as they are.")
        }
        let text: String
        var title = "CSV"
        if let id = p.string("itemid") ?? p.string("itemId") ?? p.string("itemID"), !id.isEmpty {
            let item = try portal.visibleItem(id: id, c)
            guard item.type.caseInsensitiveCompare(PublishFileType.csv.itemType) == .orderedSame else {
                throw ArcGISError.invalidParameter("itemid", "The item is a \(item.type), not a CSV file.")
            }
            title = item.title
            switch try store.portal.data(of: item.id) {
            case .file(_, let path)?: text = try Self.head(of: path)
            case .text(let body)?: text = body
            default: throw ArcGISError.invalidParameter("itemid", "The item holds no file to analyze.")
            }
        } else if let body = p.string("text") {
            text = body
        } else {
            throw ArcGISError.missingParameter("itemid")
        }
        return Self.answer(CSVAnalysis(text: text), title: title)
    }

    /// The file's first bytes, one past the analysis' limit (so it knows the file goes on).
    static func head(of path: String) throws -> String {
        guard let file = FileHandle(forReadingAtPath: path) else { throw ArcGISError.invalidParameter("itemid", "The item's file cannot be read.") }
        defer { try? file.close() }
        let data = try file.read(upToCount: CSVAnalysis.maximumBytes + 1) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }

    /// ArcGIS's answer: `publishParameters` (with the coordinates' columns when found, which
    /// publish then takes) and the first `records`.
    static func answer(_ analysis: CSVAnalysis, title: String) -> JSONValue {
        let fields = analysis.columns.map { column -> JSONValue in
            var field: JSONObject = [
                "name": .string(column.name), "type": .string(column.type.rawValue), "alias": .string(column.name), "nullable": true,
                "editable": true,
            ]
            if column.type == .string { field["length"] = 4000 }
            return .object(field)
        }
        let geometryType = analysis.hasCoordinates || analysis.geometryColumn != nil ? "esriGeometryPoint" : nil
        var layerInfo: JSONObject = [
            "name": .string(title), "type": .string(geometryType == nil ? "Table" : "Feature Layer"), "fields": .array(fields),
        ]
        if let geometryType { layerInfo["geometryType"] = .string(geometryType) }
        var parameters: JSONObject = [
            "type": "csv", "name": .string(PublishingController.serviceName(fromTitle: title)),
            "columnDelimiter": .string(String(analysis.delimiter)),
            "qualifier": "\"", "sourceSR": ["wkid": 4326], "maxRecordCount": 2000, "layerInfo": .object(layerInfo),
            "locationType": .string(analysis.hasCoordinates ? "coordinates" : analysis.geometryColumn != nil ? "wkt" : "none"),
        ]
        if let longitude = analysis.longitudeColumn, let latitude = analysis.latitudeColumn {
            parameters["longitudeFieldName"] = .string(longitude)
            parameters["latitudeFieldName"] = .string(latitude)
        }
        let records = analysis.records.map { record -> JSONValue in
            var attributes: JSONObject = [:]
            for column in analysis.columns { attributes[column.name] = .string(record[column.name] ?? "") }
            var answer: JSONObject = ["attributes": .object(attributes)]
            if let longitude = analysis.longitudeColumn.flatMap({ record[$0] }).flatMap(Double.init),
                let latitude = analysis.latitudeColumn.flatMap({ record[$0] }).flatMap(Double.init)
            {
                answer["geometry"] = ["x": .double(longitude), "y": .double(latitude)]
            }
            return .object(answer)
        }
        return ["publishParameters": .object(parameters), "records": .array(records), "layerInfo": .object(layerInfo)]
    }

    /// `portals/self/isServiceNameAvailable` (`name`, `type`): whether publish would take the
    /// name, as the ArcGIS API for Python asks before a CSV's publish (an editor's, as publish
    /// is: the routes are admitted as changes). Whatever the type asked, as publish decides.
    func nameAvailable(_ c: OutpostRequestContext) throws -> JSONValue {
        guard let name = c.form.parameters.string("name") else { throw ArcGISError.missingParameter("name") }
        let free = ServiceDefinition.isValidName(name) && !name.contains("/") ? try !serviceNameTaken(name) : false
        return ["available": .bool(free)]
    }

    /// Whether a service of any kind has the name (any case): published services share one
    /// namespace, so a tile service never answers under a feature service's name, which a
    /// client could take for it (`.../Parcels/MapServer` beside `.../Parcels/FeatureServer`).
    /// Names compare as the catalog compares them (without case); a running
    /// publish's name is taken too (`PublishesInFlight`).
    func serviceNameTaken(_ name: String) throws -> Bool {
        try serviceNameStored(name) || portal.publishes.claimed(name, jobs: store.jobs)
    }

    func serviceNameStored(_ name: String) throws -> Bool {
        let key = ServiceDefinition.normalizedName(name)
        if try store.tiles.tileSets().contains(where: { ServiceDefinition.normalizedName($0.name) == key }) { return true }
        return try store.catalog().service(named: name) != nil
    }
}
