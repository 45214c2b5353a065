import ArgumentParser
import Foundation
import OutpostClient
import OutpostWire

/// `outpost areas list|create|refresh|delete`: preplanned map areas of a web map, against any
/// portal with an OfflinePackaging service (the requests the ArcGIS API for Python sends;
/// docs/map-areas.md).
struct Areas: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "areas", abstract: "Preplanned map areas of a web map, on any server that packages them.",
        subcommands: [List.self, Create.self, Refresh.self, Delete.self])

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
        @OptionGroup var server: Server

        func run() async throws {
            let numbers = extent.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            guard numbers.count == 4 || numbers.count == 5 else { throw ValidationError("--extent: xmin,ymin,xmax,ymax[,wkid]") }
            let (area, packages) = try await server.client().create(
                webMap: webMap, extent: Envelope(xmin: numbers[0], ymin: numbers[1], xmax: numbers[2], ymax: numbers[3]),
                wkid: numbers.count == 5 ? Int(numbers[4]) : 4326, title: title, refreshSchedule: refreshSchedule)
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
}
