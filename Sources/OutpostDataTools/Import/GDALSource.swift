import Foundation
import GRDB
import OutpostStorage
import OutpostWire
import Subprocess

/// Any vector source GDAL reads (a File Geodatabase folder, a Shapefile, CSV with X/Y or WKT
/// columns, KML, GPX, a `PG:` connection string…), turned into a GeoPackage by GDAL's own
/// `ogr2ogr` for `FeatureImporter` to import. `ogr2ogr` keeps what the GeoPackage can say:
/// field domains (as the schema extension's constraints), layers and their spatial references.
///
/// The command rather than the library: one process boundary, no link to a large C API and its
/// version, and every driver of the installed GDAL (docs/import.md weighs the two).
enum GDALSource {
    /// Whether `path` is for GDAL: not a format Outpost reads itself.
    static func handles(_ path: String) -> Bool {
        let lowered = path.lowercased()
        return ![".gpkg", ".geojson", ".json", ".mbtiles"].contains { lowered.hasSuffix($0) }
    }

    /// Writes `source` into a new GeoPackage at `target`, reprojected to EPSG `srs` when given.
    /// `progress` hears GDAL's own percentage of the copy.
    /// `csv` says the source is CSV whatever its name; `onlyDriver` is the one GDAL driver that
    /// may open it (an upload's); past `timeLimit`, GDAL is stopped and the conversion fails.
    static func convert(
        _ source: String, to target: String, srs: Int? = nil, csv: Bool = false, csvCoordinates: (longitude: String, latitude: String)? = nil,
        onlyDriver: String? = nil, timeLimit: Duration? = nil, progress: (@Sendable (Int) -> Void)? = nil
    ) async throws {
        var arguments = ["ogr2ogr", "-f", "GPKG", target, source]
        let csv = csv || source.lowercased().hasSuffix(".csv")
        if csv {
            // Coordinates from the columns named, else the usual names (CSVAnalysis's), or WKT;
            // the columns' types guessed from their values.
            let longitude = csvCoordinates?.longitude ?? CSVAnalysis.longitudeNames.joined(separator: ",")
            let latitude = csvCoordinates?.latitude ?? CSVAnalysis.latitudeNames.joined(separator: ",")
            arguments += [
                "-oo", "X_POSSIBLE_NAMES=\(longitude)", "-oo", "Y_POSSIBLE_NAMES=\(latitude)",
                "-oo", "GEOM_POSSIBLE_NAMES=wkt,geometry,geom,the_geom", "-oo", "KEEP_GEOM_COLUMNS=NO", "-oo", "AUTODETECT_TYPE=YES",
            ]
        }
        if csv {
            // A CSV file says nothing of its coordinates: they are WGS 84, as their column names
            // (longitude, latitude) say; reprojecting needs that said.
            arguments += srs.map { ["-s_srs", "EPSG:4326", "-t_srs", "EPSG:\($0)"] } ?? ["-a_srs", "EPSG:4326"]
        } else if let srs {
            arguments += ["-t_srs", "EPSG:\(srs)"]
        }
        if progress != nil { arguments.append("-progress") }
        try await run(Array(arguments.dropFirst()), what: "read \(source)", onlyDriver: onlyDriver, timeLimit: timeLimit, progress: progress)
    }

    /// Whether `path` names a File Geodatabase (a `.gdb` folder, or one zipped).
    static func isFileGeodatabase(_ path: String) -> Bool {
        var lowered = path.lowercased()
        while lowered.hasSuffix("/") { lowered.removeLast() }
        return lowered.hasSuffix(".gdb") || lowered.hasSuffix(".gdb.zip")
    }

    /// The relationship classes of a File Geodatabase, read from the definitions of its
    /// `GDB_Items` table, which `ogr2ogr` copies into a scratch GeoPackage at `scratch`.
    static func geodatabaseCatalog(
        _ source: String, scratch: String, onlyDriver: String? = nil, timeLimit: Duration? = nil
    ) async throws
        -> GeodatabaseCatalog
    {
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        try await run(
            ["-f", "GPKG", scratch, source, "-oo", "LIST_ALL_TABLES=YES", "-sql", "SELECT Name, Definition FROM GDB_Items", "-nln", "items"],
            what: "read the definitions of \(source)", onlyDriver: onlyDriver, timeLimit: timeLimit)
        var configuration = Configuration()
        configuration.readonly = true
        let items = try await DatabaseQueue(path: scratch, configuration: configuration).read { db in
            try Row.fetchAll(db, sql: "SELECT Name, Definition FROM items WHERE Definition IS NOT NULL").map {
                (name: ($0["Name"] as String?) ?? "", definition: $0["Definition"] as String)
            }
        }
        do { return try GeodatabaseCatalog(items: items) } catch let error as GeodatabaseCatalog.Unreadable {
            throw StoreError.importFailed(error.description)
        }
    }

    /// Runs `ogr2ogr` with `arguments`; a failure says what it was to `what`. With `progress`,
    /// the percentages `-progress` prints ("0...10...20") are handed on as they come.
    ///
    /// Both pipes are read as they fill, so neither can stall GDAL; of standard error the first
    /// 64 KiB are kept (GDAL can warn once per feature). Cancelling the task ends the process.
    static func run(
        _ arguments: [String], what: String, onlyDriver: String? = nil, timeLimit: Duration? = nil, progress: (@Sendable (Int) -> Void)? = nil
    ) async throws {
        let skip: String? = if let onlyDriver { try await skipping(allBut: onlyDriver) } else { nil }
        guard let timeLimit else { return try await runOnce(arguments, what: what, skip: skip, progress: progress) }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await runOnce(arguments, what: what, skip: skip, progress: progress)
                return true
            }
            group.addTask {
                try await Task.sleep(for: timeLimit)
                return false
            }
            let finished = try await group.next() ?? false
            // Cancelling the other task ends GDAL's process when the time ran out first.
            group.cancelAll()
            guard finished else { throw StoreError.importFailed("GDAL did not \(what) within \(timeLimit.components.seconds) s.") }
        }
    }

    private static func runOnce(_ arguments: [String], what: String, skip: String?, progress: (@Sendable (Int) -> Void)?) async throws {
        let environment = skip.map { Environment.inherit.updating(["GDAL_SKIP": $0]) } ?? .inherit
        let result: ExecutionResult<String, SequenceOutput, SequenceOutput>
        do {
            result = try await Subprocess.run(
                .name("ogr2ogr"), arguments: Arguments(arguments), environment: environment, input: .none, output: .sequence, error: .sequence
            ) {
                execution in
                async let percentages: Void = {
                    var reader = ProgressReader()
                    for try await chunk in execution.standardOutput {
                        for percent in chunk.withUnsafeBytes({ reader.read($0) }) { progress?(percent) }
                    }
                }()
                var message = [UInt8]()
                for try await chunk in execution.standardError where message.count < 1 << 16 {
                    chunk.withUnsafeBytes { message += $0.prefix((1 << 16) - message.count) }
                }
                try await percentages
                return String(decoding: message, as: UTF8.self)
            }
        } catch let error as SubprocessError where error.code == .executableNotFound {
            throw StoreError.importFailed("GDAL's ogr2ogr is needed to \(what) (Debian: apt install gdal-bin)")
        } catch let error as SubprocessError {
            throw StoreError.importFailed("cannot run ogr2ogr (GDAL's command-line tools, Debian's gdal-bin): \(error)")
        }
        guard result.terminationStatus.isSuccess else {
            throw StoreError.importFailed("GDAL could not \(what): \(summary(ofErrors: result.closureResult))")
        }
    }

    /// GDAL's complaints as a job's message shows them: its first lines, at most 1,000
    /// characters, and how many more there were (a CSV of bad rows made 37 KB of them).
    static func summary(ofErrors text: String) -> String {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        var kept: [String] = []
        var length = 0
        for line in lines.prefix(5) {
            let room = 1_000 - length
            guard room > 0 else { break }
            kept.append(line.count > room ? String(line.prefix(room)) + "…" : line)
            length += min(line.count, room)
        }
        let more = lines.count - kept.count
        return kept.joined(separator: " ") + (more > 0 ? " (and \(more) more line\(more == 1 ? "" : "s"))" : "")
    }
}

extension GDALSource {
    /// The installed GDAL's drivers, as `ogr2ogr --formats` names them (asked once).
    private static let installedDrivers = DriverList()

    /// `GDAL_SKIP`'s value that leaves only `driver` (and GPKG, which writes): every other driver, comma-separated (names
    /// may hold spaces). GDAL then cannot take a file for something else (a VRT pointing at
    /// other files, a URL, a database).
    static func skipping(allBut driver: String) async throws -> String {
        try await installedDrivers.names().filter { $0 != driver && $0 != "GPKG" }.joined(separator: ",")
    }

    private actor DriverList {
        var cached: [String]?

        func names() async throws -> [String] {
            if let cached { return cached }
            let result = try await Subprocess.run(.name("ogr2ogr"), arguments: ["--formats"], output: .string(limit: 1 << 20), error: .discarded)
            // "  ESRI Shapefile -vector- (rw+v): ESRI Shapefile": the name ends at " -".
            let names = result.standardOutput.split(separator: "\n").compactMap { line -> String? in
                guard line.hasPrefix("  "), let end = line.range(of: " -") else { return nil }
                return line[..<end.lowerBound].trimmingCharacters(in: .whitespaces)
            }
            guard !names.isEmpty else { throw StoreError.importFailed("GDAL's ogr2ogr lists no drivers.") }
            cached = names
            return names
        }
    }
}

/// The percentages in what `ogr2ogr -progress` prints ("0...10...20...", then "100 - done."):
/// numbers followed by a dot are finished; a trailing one may still grow.
struct ProgressReader {
    private var pending = ""

    mutating func read(_ bytes: UnsafeRawBufferPointer) -> [Int] {
        pending += String(decoding: bytes, as: UTF8.self)
        var parts = pending.components(separatedBy: ".")
        pending = parts.removeLast()
        return parts.compactMap { Int(String($0.trimmingCharacters(in: .whitespaces).prefix(while: \.isNumber))) }
    }
}
