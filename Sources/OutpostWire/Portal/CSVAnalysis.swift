import Foundation

/// What the portal's `content/features/analyze` says of a CSV file before it is published
/// (docs/portal.md, "Publishing"): its delimiter, its columns with the types their values
/// suggest, the columns holding coordinates, and its first records. Pure: it reads the first
/// `maximumBytes` of the file and the first `maximumRows` rows, never more, whatever the file.
///
/// The coordinate columns are found by the names the CSV import takes (`longitude`, `lon`, `x`…),
/// so what analyze answers is what publish will do.
public struct CSVAnalysis: Sendable, Equatable {
    public static let maximumBytes = 65_536
    public static let maximumRows = 100
    public static let maximumColumns = 500
    /// The names the import takes for coordinates, in the order it prefers them.
    public static let longitudeNames = ["x", "lon", "lng", "long", "longitude", "easting"]
    public static let latitudeNames = ["y", "lat", "latitude", "northing"]
    public static let geometryNames = ["wkt", "geometry", "geom", "the_geom"]

    public struct Column: Sendable, Equatable {
        public let name: String
        public let type: EsriFieldType
    }

    public let delimiter: Character
    public let columns: [Column]
    public let longitudeColumn: String?
    public let latitudeColumn: String?
    public let geometryColumn: String?
    /// The first rows (at most five), as text by column name.
    public let records: [[String: String]]

    public var hasCoordinates: Bool { longitudeColumn != nil && latitudeColumn != nil }

    public init(text: some StringProtocol) {
        let head = String(decoding: Array(text.utf8.prefix(Self.maximumBytes)), as: UTF8.self)
        // The last line may be cut by the byte limit: it is left out unless the file ended there.
        let complete = text.utf8.count <= Self.maximumBytes
        let delimiter = Self.delimiter(of: head)
        var rows = CSVRows(head, delimiter: delimiter, maximumRows: Self.maximumRows + 1, maximumColumns: Self.maximumColumns).all
        if !complete, rows.count > 1 { rows.removeLast() }
        let header = rows.first ?? []
        var seen: Set<String> = []
        let names = header.enumerated().map { index, raw -> String in
            var name = raw.trimmingCharacters(in: .whitespaces)
            if name.isEmpty { name = "field_\(index + 1)" }
            while !seen.insert(name.lowercased()).inserted { name += "_\(index + 1)" }
            return name
        }
        let body = Array(rows.dropFirst())
        self.delimiter = delimiter
        columns = names.enumerated().map { index, name in
            Column(name: name, type: Self.type(of: body.compactMap { index < $0.count ? $0[index] : nil }))
        }
        func find(_ candidates: [String]) -> String? {
            candidates.lazy.compactMap { candidate in names.first { $0.lowercased() == candidate } }.first
        }
        longitudeColumn = find(Self.longitudeNames)
        latitudeColumn = find(Self.latitudeNames)
        geometryColumn = find(Self.geometryNames)
        records = body.prefix(5).map { row in
            Dictionary(names.enumerated().map { ($1, $0 < row.count ? row[$0] : "") }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// The delimiter of the header line: the one of `,`, `;`, tab and `|` it holds most of
    /// outside quotes (a comma when none).
    static func delimiter(of text: String) -> Character {
        var counts: [Character: Int] = [:]
        var quoted = false
        for character in text {
            if character == "\"" { quoted.toggle() }
            if !quoted, character == "\n" || character == "\r\n" || character == "\r" { break }
            if !quoted, [",", ";", "\t", "|"].contains(character) { counts[character, default: 0] += 1 }
        }
        return [",", ";", "\t", "|"].max { counts[$0, default: 0] < counts[$1, default: 0] }.flatMap { counts[$0, default: 0] > 0 ? $0 : nil } ?? ","
    }

    /// A column's type from its values: integer when every non-empty value is one (within 32
    /// bits), double when every one is a number, string otherwise or when none is given.
    static func type(of values: [String]) -> EsriFieldType {
        let given = values.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !given.isEmpty else { return .string }
        if given.allSatisfy({ Int32($0) != nil }) { return .integer }
        if given.allSatisfy({ Double($0).map(\.isFinite) == true }) { return .double }
        return .string
    }
}

/// RFC 4180 rows: fields split at the delimiter outside double quotes, `""` a quote inside
/// them, lines ended by LF or CRLF (inside quotes, part of the field); bounded in rows and
/// columns.
struct CSVRows {
    let all: [[String]]

    init(_ text: String, delimiter: Character, maximumRows: Int, maximumColumns: Int) {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var pendingQuote = false
        func endField() {
            if row.count < maximumColumns { row.append(field) }
            field = ""
        }
        for character in text {
            guard rows.count < maximumRows else { break }
            if quoted {
                if pendingQuote {
                    pendingQuote = false
                    if character == "\"" {
                        field.append("\"")
                        continue
                    }
                    quoted = false
                } else if character == "\"" {
                    pendingQuote = true
                    continue
                } else {
                    field.append(character)
                    continue
                }
            }
            switch character {
            case "\"" where field.isEmpty: quoted = true
            case delimiter: endField()
            case "\n", "\r\n", "\r":
                endField()
                if !(row.count == 1 && row[0].isEmpty) { rows.append(row) }
                row = []
            default: field.append(character)
            }
        }
        if rows.count < maximumRows, !field.isEmpty || !row.isEmpty {
            endField()
            rows.append(row)
        }
        all = rows
    }
}
