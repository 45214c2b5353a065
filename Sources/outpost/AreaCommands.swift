import ArgumentParser
import Foundation
import OutpostClient
import OutpostWire

/// `outpost areas list|create|refresh|delete`: preplanned map areas of a web map, against any
/// portal with an OfflinePackaging service (the requests the ArcGIS API for Python sends;
/// docs/map-areas.md); `download` and `update`: a device's copy of an area, kept current by
/// the scheduled-update deltas the server publishes.
struct Areas: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "areas", abstract: "Preplanned map areas of a web map, on any server that packages them.",
        subcommands: [List.self, Create.self, Refresh.self, Delete.self, Download.self, Update.self])

    struct Server: ParsableArguments {
        @Option(name: .long, help: "The server, e.g. https://host/arcgis.") var server: String
        @Option(name: .long, help: "A token for the server.") var token: String?

        func client() throws -> MapAreaClient {
            guard let url = URL(string: server) else { throw ValidationError("--server is not a URL") }
            return MapAreaClient(base: url, token: token)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The web map's areas: id, status, title.")
        @Argument(help: "The web map's item id.") var webMap: String
        @OptionGroup var server: Server

        func run() async throws {
            for area in try await server.client().areas(of: webMap) { print("\(area.id)\t\(area.status)\t\(area.title)") }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an area and package it; prints the area's id and its packages.")
        @Argument(help: "The web map's item id.") var webMap: String
        @Option(name: .long, help: "xmin,ymin,xmax,ymax[,wkid] (default wkid 4326).") var extent: String
        @Option(name: .long, help: "The area's title.") var title: String
        @Option(name: .long, help: "A Quartz cron refresh schedule, at most daily (e.g. '0 30 2 * * ?').") var refreshSchedule: String?
        @Option(name: .long, help: "Keep scheduled-update deltas of every feature package this many days (createPkgDeltas).")
        var keepUpdatesDays: Int?
        @OptionGroup var server: Server

        func run() async throws {
            let numbers = extent.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard numbers.count == 4 || numbers.count == 5 else { throw ValidationError("--extent: xmin,ymin,xmax,ymax[,wkid]") }
            let (area, packages) = try await server.client().create(
                webMap: webMap, extent: Envelope(xmin: numbers[0], ymin: numbers[1], xmax: numbers[2], ymax: numbers[3]),
                wkid: numbers.count == 5 ? Int(numbers[4]) : 4326, title: title, refreshSchedule: refreshSchedule,
                updatesKeptDays: keepUpdatesDays)
            print(area)
            for package in packages.arrayValue ?? [] {
                let error = package["error"]?.stringValue.map { "\t\($0)" } ?? ""
                print(
                    "\(package["state"]?.stringValue ?? "")\t\(package["itemId"]?.stringValue ?? "-")\t\(package["source"]?.stringValue ?? "")\(error)"
                )
            }
        }
    }

    struct Refresh: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Refresh an area's packages (RefreshMapAreaPackage).")
        @Argument(help: "The map area's item id.") var area: String
        @OptionGroup var server: Server

        func run() async throws {
            print(try await server.client().refresh(area: area).jsonText)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an area and its packages.")
        @Argument(help: "The map area's item id.") var area: String
        @OptionGroup var server: Server

        func run() async throws {
            try await server.client().delete(area: area)
        }
    }

    struct Download: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download an area's packages into a folder, each as <package id>.gpkg, .tpkx or .mbtiles.")
        @Argument(help: "The map area's item id.") var area: String
        @Option(name: .long, help: "The folder (made if absent).") var to: String
        @OptionGroup var server: Server

        func run() async throws {
            for package in try await server.client().download(area: area, to: URL(fileURLWithPath: to)) {
                print("\(package.fileName)\t\(package.type)")
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bring the feature packages (<package id>.gpkg) in a folder up to date with their scheduled-update deltas.")
        @Argument(help: "A folder written by `outpost areas download`.") var folder: String
        @Flag(name: .long, help: "Only say what would be done.") var check = false
        @OptionGroup var server: Server

        func run() async throws {
            let client = try server.client()
            let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".gpkg") }.sorted()
            for name in names {
                let package = String(name.dropLast(".gpkg".count))
                let path = (folder as NSString).appendingPathComponent(name)
                let plan =
                    check
                    ? try await client.checkForUpdates(package: package, copy: path) : try await client.update(package: package, copy: path).plan
                switch plan {
                case .upToDate: print("\(name)\tup to date")
                case .applyDeltas(let deltas):
                    print("\(name)\t\(check ? "would apply" : "applied") \(deltas.map(\.name).joined(separator: ", ")) (\(plan.deltaBytes) bytes)")
                case .downloadWhole(let reason):
                    print("\(name)\t\(check ? "would download" : "downloaded") whole: \(reason)")
                }
            }
        }
    }
}
