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
        @Option(name: .long, help: "The server, e.g. https://host/arcgis (default: the item URL's, when an item is given as a URL).")
        var server: String?
        @Option(name: .long, help: "A token for the server.") var token: String?

        /// The client of `--server`, for commands that name no item.
        func client() throws -> MapAreaClient {
            guard let server, let url = URL(string: server), url.scheme != nil, url.host != nil else {
                throw ValidationError("--server https://host/arcgis is needed")
            }
            return MapAreaClient(base: url, token: token)
        }

        /// The client of the item's portal (`--server`, else its URL's) and the item's id.
        func client(for item: String) throws -> (client: MapAreaClient, itemId: String) {
            let (id, portal) = try resolveItem(item, server: server)
            return (MapAreaClient(base: portal, token: token), id)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The web map's areas: id, status, title.")
        @Argument(help: ArgumentHelp("The web map: \(itemArgumentHelp).")) var webMap: String
        @OptionGroup var server: Server

        func run() async throws {
            let (client, id) = try server.client(for: webMap)
            for area in try await client.areas(of: id) { print("\(area.id)\t\(area.status)\t\(area.title)") }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an area and package it; prints the area's id and its packages.")
        @Argument(help: ArgumentHelp("The web map: \(itemArgumentHelp).")) var webMap: String
        @Option(name: .long, help: "xmin,ymin,xmax,ymax[,wkid] (default wkid 4326).") var extent: String
        @Option(name: .long, help: "The area's title.") var title: String
        @Option(name: .long, help: "A Quartz cron refresh schedule, at most daily (e.g. '0 30 2 * * ?').") var refreshSchedule: String?
        @Option(name: .long, help: "Keep scheduled-update deltas of every feature package this many days (createPkgDeltas).")
        var keepUpdatesDays: Int?
        @OptionGroup var server: Server

        func run() async throws {
            let numbers = extent.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard numbers.count == 4 || numbers.count == 5 else { throw ValidationError("--extent: xmin,ymin,xmax,ymax[,wkid]") }
            let (client, id) = try server.client(for: webMap)
            let (area, packages) = try await client.create(
                webMap: id, extent: Envelope(xmin: numbers[0], ymin: numbers[1], xmax: numbers[2], ymax: numbers[3]),
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
        @Argument(help: ArgumentHelp("The map area: \(itemArgumentHelp).")) var area: String
        @OptionGroup var server: Server

        func run() async throws {
            let (client, id) = try server.client(for: area)
            print(try await client.refresh(area: id).jsonText)
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete an area and its packages.")
        @Argument(help: ArgumentHelp("The map area: \(itemArgumentHelp).")) var area: String
        @OptionGroup var server: Server

        func run() async throws {
            let (client, id) = try server.client(for: area)
            try await client.delete(area: id)
        }
    }

    struct Download: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download an area's packages into a folder, each as <package id>.gpkg, .tpkx or .mbtiles.")
        @Argument(help: ArgumentHelp("The map area: \(itemArgumentHelp).")) var area: String
        @Option(name: .long, help: "The folder (made if absent).") var to: String
        @OptionGroup var server: Server

        func run() async throws {
            let (client, id) = try server.client(for: area)
            for package in try await client.download(area: id, to: URL(fileURLWithPath: to)) {
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
