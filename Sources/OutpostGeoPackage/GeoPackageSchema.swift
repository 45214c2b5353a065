import GRDB
import OutpostGeometry
import OutpostWire

/// Fixed names and DDL of the GeoPackage core (OGC 12-128r19, Annex C) and of the
/// extensions a replica file uses.
public enum GeoPackageSchema {
    /// `PRAGMA application_id` of a GeoPackage ("GPKG").
    public static let applicationID: Int32 = 0x4750_4B47
    /// `PRAGMA user_version` of GeoPackage 1.4.0.
    public static let userVersion: Int32 = 10400
    public static let geometryColumn = "shape"

    static let coreTables = """
        CREATE TABLE gpkg_spatial_ref_sys (
            srs_name TEXT NOT NULL,
            srs_id INTEGER NOT NULL PRIMARY KEY,
            organization TEXT NOT NULL,
            organization_coordsys_id INTEGER NOT NULL,
            definition TEXT NOT NULL,
            description TEXT
        );
        CREATE TABLE gpkg_contents (
            table_name TEXT NOT NULL PRIMARY KEY,
            data_type TEXT NOT NULL,
            identifier TEXT UNIQUE,
            description TEXT DEFAULT '',
            last_change DATETIME NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
            min_x DOUBLE,
            min_y DOUBLE,
            max_x DOUBLE,
            max_y DOUBLE,
            srs_id INTEGER,
            CONSTRAINT fk_gc_r_srs_id FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys(srs_id)
        );
        CREATE TABLE gpkg_geometry_columns (
            table_name TEXT NOT NULL,
            column_name TEXT NOT NULL,
            geometry_type_name TEXT NOT NULL,
            srs_id INTEGER NOT NULL,
            z TINYINT NOT NULL,
            m TINYINT NOT NULL,
            CONSTRAINT pk_geom_cols PRIMARY KEY (table_name, column_name),
            CONSTRAINT uk_gc_table_name UNIQUE (table_name),
            CONSTRAINT fk_gc_tn FOREIGN KEY (table_name) REFERENCES gpkg_contents(table_name),
            CONSTRAINT fk_gc_srs FOREIGN KEY (srs_id) REFERENCES gpkg_spatial_ref_sys (srs_id)
        );
        CREATE TABLE gpkg_extensions (
            table_name TEXT,
            column_name TEXT,
            extension_name TEXT NOT NULL,
            definition TEXT NOT NULL,
            scope TEXT NOT NULL,
            CONSTRAINT ge_tce UNIQUE (table_name, column_name, extension_name)
        );
        INSERT INTO gpkg_spatial_ref_sys VALUES
            ('Undefined cartesian SRS', -1, 'NONE', -1, 'undefined', 'undefined cartesian coordinate reference system'),
            ('Undefined geographic SRS', 0, 'NONE', 0, 'undefined', 'undefined geographic coordinate reference system');
        """

    static let relatedTablesDDL = """
        CREATE TABLE gpkgext_relations (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            base_table_name TEXT NOT NULL,
            base_primary_column TEXT NOT NULL DEFAULT 'id',
            related_table_name TEXT NOT NULL,
            related_primary_column TEXT NOT NULL DEFAULT 'id',
            relation_name TEXT NOT NULL,
            mapping_table_name TEXT NOT NULL UNIQUE
        );
        """

    public static let rtreeDefinition = "http://www.geopackage.org/spec120/#extension_rtree"
    public static let relatedTablesDefinition = "http://docs.opengeospatial.org/is/18-000/18-000.html"

    /// The GeoPackage column type of an Esri field (Table 1 of the core: Esri integers are
    /// 32-bit, so MEDIUMINT; dates are DATETIME text).
    public static func columnType(for field: FieldDefinition) -> String {
        switch field.type {
        case .oid: "INTEGER"
        case .globalID, .guid: "TEXT(38)"
        case .string: field.length.map { "TEXT(\($0))" } ?? "TEXT"
        case .integer: "MEDIUMINT"
        case .smallInteger: "SMALLINT"
        case .double: "DOUBLE"
        case .single: "FLOAT"
        case .date: "DATETIME"
        case .blob: "BLOB"
        case .xml: "TEXT"
        }
    }

    /// The geometry type name of a layer's column (polylines and polygons are stored multi,
    /// as on the server).
    public static func geometryTypeName(_ type: EsriGeometryType) -> String {
        switch type {
        case .point: "POINT"
        case .multipoint: "MULTIPOINT"
        case .polyline: "MULTILINESTRING"
        case .polygon, .envelope: "MULTIPOLYGON"
        }
    }

    /// A new GlobalID (v4 UUID, upper-case, braced) from built-in SQLite functions only, for
    /// defaults and triggers that any SQLite client can run.
    public static let globalIDExpression = """
        ('{' || hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' \
        || substr('89AB', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)) || '}')
        """

    /// The SQL functions GeoPackage R-tree triggers call (`ST_IsEmpty`, `ST_MinX`, …), which
    /// plain SQLite lacks. Register them on every connection that edits a feature table.
    public static func registerFunctions(_ db: Database) {
        db.add(
            function: DatabaseFunction("ST_IsEmpty", argumentCount: 1, pure: true) { values in
                guard let header = header(of: values[0]) else { return nil }
                return header.isEmpty || header.envelope?.isEmpty == true
            })
        db.add(function: DatabaseFunction("ST_MinX", argumentCount: 1, pure: true) { values in envelope(of: values[0])?.xmin })
        db.add(function: DatabaseFunction("ST_MaxX", argumentCount: 1, pure: true) { values in envelope(of: values[0])?.xmax })
        db.add(function: DatabaseFunction("ST_MinY", argumentCount: 1, pure: true) { values in envelope(of: values[0])?.ymin })
        db.add(function: DatabaseFunction("ST_MaxY", argumentCount: 1, pure: true) { values in envelope(of: values[0])?.ymax })
    }

    /// What a copy inside SQLite needs (`ReplicaLayerWriter.copyFeatures`): a server date
    /// (epoch milliseconds) as the GeoPackage's DATETIME text.
    static func registerCopyFunctions(_ db: Database) {
        db.add(
            function: DatabaseFunction("outpost_gpkg_date", argumentCount: 1, pure: true) { values in
                guard case .int64(let ms) = values[0].storage else { return values[0] }
                return GeoPackageDate.text(fromEpochMilliseconds: ms)
            })
    }

    static func header(of value: DatabaseValue) -> GeoPackageBinary.Header? {
        guard case .blob(let data) = value.storage else { return nil }
        return try? GeoPackageBinary.header([UInt8](data))
    }

    /// The envelope from the header, or computed from the WKB when the header has none (points).
    static func envelope(of value: DatabaseValue) -> Envelope? {
        guard case .blob(let data) = value.storage else { return nil }
        let bytes = [UInt8](data)
        guard let header = try? GeoPackageBinary.header(bytes), !header.isEmpty else { return nil }
        if let envelope = header.envelope { return envelope }
        return (try? GeoPackageBinary.decode(bytes))?.geometry.envelope
    }
}

extension GeoPackageSchema {
    /// The R-tree triggers of GeoPackage 1.2/1.3 (insert, update1–4, delete), which 1.4 still
    /// accepts and GDAL's validator checks for.
    static func rtreeTriggers(table: String, column: String, key: String) -> String {
        let t = table.quotedDatabaseIdentifier
        let c = column.quotedDatabaseIdentifier
        let i = key.quotedDatabaseIdentifier
        let rtree = "rtree_\(table)_\(column)"
        let r = rtree.quotedDatabaseIdentifier
        func name(_ suffix: String) -> String { "\(rtree)_\(suffix)".quotedDatabaseIdentifier }
        let bounds = "NEW.\(i), ST_MinX(NEW.\(c)), ST_MaxX(NEW.\(c)), ST_MinY(NEW.\(c)), ST_MaxY(NEW.\(c))"
        return """
            CREATE TRIGGER \(name("insert")) AFTER INSERT ON \(t)
              WHEN (NEW.\(c) NOT NULL AND NOT ST_IsEmpty(NEW.\(c)))
            BEGIN
              INSERT OR REPLACE INTO \(r) VALUES (\(bounds));
            END;
            CREATE TRIGGER \(name("update1")) AFTER UPDATE OF \(c) ON \(t)
              WHEN OLD.\(i) = NEW.\(i) AND (NEW.\(c) NOTNULL AND NOT ST_IsEmpty(NEW.\(c)))
            BEGIN
              INSERT OR REPLACE INTO \(r) VALUES (\(bounds));
            END;
            CREATE TRIGGER \(name("update2")) AFTER UPDATE OF \(c) ON \(t)
              WHEN OLD.\(i) = NEW.\(i) AND (NEW.\(c) ISNULL OR ST_IsEmpty(NEW.\(c)))
            BEGIN
              DELETE FROM \(r) WHERE id = OLD.\(i);
            END;
            CREATE TRIGGER \(name("update3")) AFTER UPDATE ON \(t)
              WHEN OLD.\(i) != NEW.\(i) AND (NEW.\(c) NOTNULL AND NOT ST_IsEmpty(NEW.\(c)))
            BEGIN
              DELETE FROM \(r) WHERE id = OLD.\(i);
              INSERT OR REPLACE INTO \(r) VALUES (\(bounds));
            END;
            CREATE TRIGGER \(name("update4")) AFTER UPDATE ON \(t)
              WHEN OLD.\(i) != NEW.\(i) AND (NEW.\(c) ISNULL OR ST_IsEmpty(NEW.\(c)))
            BEGIN
              DELETE FROM \(r) WHERE id IN (OLD.\(i), NEW.\(i));
            END;
            CREATE TRIGGER \(name("delete")) AFTER DELETE ON \(t)
              WHEN OLD.\(c) NOT NULL
            BEGIN
              DELETE FROM \(r) WHERE id = OLD.\(i);
            END;
            """
    }
}

/// Column values of a GeoPackage row as the server's JSON attributes: dates (DATETIME text) as
/// epoch milliseconds, blobs as base64 — for the server reading uploads and the client reading
/// its geodatabase alike.
public enum GeoPackageValue {
    /// nil when a date column holds text that is not a date (the caller decides what that is).
    public static func json(_ value: DatabaseValue, isDate: Bool) -> JSONValue? {
        switch value.storage {
        case .null: return .null
        case .int64(let i): return .int(i)
        case .double(let d): return .double(d)
        case .string(let s):
            guard isDate else { return .string(s) }
            return GeoPackageDate.epochMilliseconds(from: s).map { .int($0) }
        case .blob(let data): return .string(data.base64EncodedString())
        }
    }
}

/// Dates: Esri's epoch milliseconds ↔ GeoPackage DATETIME text (`YYYY-MM-DDTHH:MM:SS.sssZ`).
public enum GeoPackageDate {
    /// Formats without Foundation (a million rows may carry dates): days from the epoch to a
    /// civil date by Howard Hinnant's algorithm.
    public static func text(fromEpochMilliseconds ms: Int64) -> String {
        let msPerDay: Int64 = 86_400_000
        var days = ms / msPerDay
        var rest = ms % msPerDay
        if rest < 0 {
            rest += msPerDay
            days -= 1
        }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        var year = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        if month <= 2 { year += 1 }
        let hour = rest / 3_600_000
        let minute = rest / 60000 % 60
        let second = rest / 1000 % 60
        let milli = rest % 1000
        func pad(_ v: Int64, _ width: Int) -> String {
            let s = String(v)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2)).\(pad(milli, 3))Z"
    }

    /// Parses `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM:SS[.fff][Z]` (UTC) into epoch milliseconds.
    public static func epochMilliseconds(from text: String) -> Int64? {
        let bytes = Array(text.utf8)
        func number(_ start: Int, _ count: Int) -> Int64? {
            guard start + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for b in bytes[start..<(start + count)] {
                guard b >= 48 && b <= 57 else { return nil }
                value = value * 10 + Int64(b - 48)
            }
            return value
        }
        guard let y = number(0, 4), let m = number(5, 2), let d = number(8, 2), (1...12).contains(m), (1...31).contains(d) else { return nil }
        var ms: Int64 = 0
        if bytes.count >= 19 {
            guard let h = number(11, 2), let mi = number(14, 2), let s = number(17, 2) else { return nil }
            ms = ((h * 60 + mi) * 60 + s) * 1000
            if bytes.count > 20, bytes[19] == UInt8(ascii: ".") {
                var digits = 0
                var fraction: Int64 = 0
                var index = 20
                while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                    if digits < 3 {
                        fraction = fraction * 10 + Int64(bytes[index] - 48)
                        digits += 1
                    }
                    index += 1
                }
                while digits < 3 {
                    fraction *= 10
                    digits += 1
                }
                ms += fraction
            }
        }
        let yy = m <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        return days * 86_400_000 + ms
    }
}
