import GRDB
import OutpostWire

/// Field domains in a GeoPackage: the schema extension's `gpkg_data_columns` names a
/// column's constraint, and `gpkg_data_column_constraints` holds it, an `enum` row per code
/// (its name in `description`) or one `range` row. GDAL reads and writes them as field
/// domains, so a GIS editing a replica offline sees the pick lists, and an import of a
/// GeoPackage (or of anything `ogr2ogr` turned into one) brings them in.
public enum GeoPackageDomains {
    static let tables = """
        CREATE TABLE IF NOT EXISTS gpkg_data_columns (
          table_name TEXT NOT NULL, column_name TEXT NOT NULL, name TEXT, title TEXT, description TEXT,
          mime_type TEXT, constraint_name TEXT,
          CONSTRAINT pk_gdc PRIMARY KEY (table_name, column_name), CONSTRAINT gdc_tn UNIQUE (table_name, name));
        CREATE TABLE IF NOT EXISTS gpkg_data_column_constraints (
          constraint_name TEXT NOT NULL, constraint_type TEXT NOT NULL, value TEXT, min NUMERIC, min_is_inclusive BOOLEAN,
          max NUMERIC, max_is_inclusive BOOLEAN, description TEXT,
          CONSTRAINT gdcc_ntv UNIQUE (constraint_name, constraint_type, value));
        """
    static let definition = "http://www.geopackage.org/spec/#extension_schema"

    /// Writes the domains of `table`'s `fields`, each domain's rows once per file.
    public static func write(_ fields: [FieldDefinition], table: String, db: Database) throws {
        let constrained = fields.compactMap { field in field.fieldDomain.map { (field, $0) } }
        guard !constrained.isEmpty else { return }
        try db.execute(sql: tables)
        for name in ["gpkg_data_columns", "gpkg_data_column_constraints"] {
            try ReplicaFileWriter.registerExtension(db, table: name, column: nil, name: "gpkg_schema", definition: definition, scope: "read-write")
        }
        for (field, domain) in constrained {
            if try !Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM gpkg_data_column_constraints WHERE constraint_name = ?)", arguments: [domain.name])!
            {
                switch domain {
                case .codedValue(let name, let codes):
                    for code in codes {
                        try db.execute(
                            sql:
                                "INSERT OR IGNORE INTO gpkg_data_column_constraints(constraint_name, constraint_type, value, description) VALUES (?, 'enum', ?, ?)",
                            arguments: [name, code.code.stringValue ?? code.code.jsonText, code.name])
                    }
                case .range(let name, let minimum, let maximum):
                    try db.execute(
                        sql: """
                            INSERT INTO gpkg_data_column_constraints(constraint_name, constraint_type, min, min_is_inclusive, max, max_is_inclusive)
                            VALUES (?, 'range', ?, 1, ?, 1)
                            """, arguments: [name, minimum, maximum])
                }
            }
            try db.execute(
                sql: "INSERT INTO gpkg_data_columns(table_name, column_name, name, title, constraint_name) VALUES (?, ?, ?, ?, ?)",
                arguments: [table, field.name, field.name, field.alias, domain.name])
        }
    }

    /// The domains of `table`'s columns, each made for its column's field type (`type`, nil
    /// for a column not imported). A constraint a field cannot hold (a `glob`, a range on
    /// text, a code that is not of the field's type) is left out: the data is imported, the
    /// constraint is not.
    public static func read(table: String, db: Database, type: (String) -> EsriFieldType?) throws -> [String: FieldDomain] {
        guard try db.tableExists("gpkg_data_columns"), try db.tableExists("gpkg_data_column_constraints") else { return [:] }
        var domains: [String: FieldDomain] = [:]
        let columns = try Row.fetchAll(
            db, sql: "SELECT column_name, constraint_name FROM gpkg_data_columns WHERE table_name = ? AND constraint_name IS NOT NULL",
            arguments: [table])
        for column in columns {
            let name: String = column["column_name"]
            let constraint: String = column["constraint_name"]
            guard let fieldType = type(name) else { continue }
            let rows = try Row.fetchAll(
                db, sql: "SELECT constraint_type, value, min, max, description FROM gpkg_data_column_constraints WHERE constraint_name = ?",
                arguments: [constraint])
            let kinds = Set(rows.map { $0["constraint_type"] as String })
            if kinds == ["enum"] {
                var codes: [FieldDomain.CodedValue] = []
                for row in rows {
                    guard let text: String = row["value"], let code = Self.code(text, for: fieldType) else {
                        codes = []
                        break
                    }
                    codes.append(FieldDomain.CodedValue(name: (row["description"] as String?) ?? text, code: code))
                }
                if !codes.isEmpty { domains[name] = .codedValue(name: constraint, codes: codes) }
            } else if kinds == ["range"], rows.count == 1, [.smallInteger, .integer, .single, .double, .date].contains(fieldType),
                let minimum: Double = rows[0]["min"], let maximum: Double = rows[0]["max"], minimum <= maximum
            {
                domains[name] = .range(name: constraint, minimum: minimum, maximum: maximum)
            }
        }
        return domains
    }

    /// An `enum` value as a code of a field of `type`.
    static func code(_ text: String, for type: EsriFieldType) -> JSONValue? {
        switch type {
        case .smallInteger, .integer, .date: Int64(text).map(JSONValue.int)
        case .single, .double: Double(text).map { $0 == $0.rounded() && abs($0) < 9e15 ? .int(Int64($0)) : .double($0) }
        case .string: .string(text)
        default: nil
        }
    }
}
