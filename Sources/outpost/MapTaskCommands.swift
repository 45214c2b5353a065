import ArgumentParser
import Foundation
import OutpostClient
import OutpostRouting
import OutpostWire

/// `outpost map geocode|suggest|reverse|route DIR`: the tasks an offline map carries
/// (`OfflineMapTasks`), asked on this machine with no server: what a device answers offline.
/// Each prints ArcGIS-like JSON, for scripts and for comparing with a service's answers.
extension OfflineMap {
    struct Tasks: ParsableArguments {
        @Argument(help: "The offline map's folder.") var folder: String
        @Option(name: .long, help: "The locator or route service by name (default: the only one, or the first by name).") var service: String?

        func locator() throws -> LocatorTask {
            let tasks = try OfflineMapTasks(offlineMapDirectory: URL(fileURLWithPath: folder))
            return try Self.pick(tasks.locatorTasks, service, "locator")
        }

        func router() throws -> RouteTask {
            let tasks = try OfflineMapTasks(offlineMapDirectory: URL(fileURLWithPath: folder))
            return try Self.pick(tasks.routeTasks, service, "route service")
        }

        static func pick<Task>(_ tasks: [String: Task], _ name: String?, _ kind: String) throws -> Task {
            if let name {
                guard let task = tasks.first(where: { $0.key.lowercased() == name.lowercased() })?.value else {
                    throw ValidationError("the offline map carries no \(kind) '\(name)' (it has: \(tasks.keys.sorted().joined(separator: ", ")))")
                }
                return task
            }
            guard let first = tasks.keys.sorted().first, let task = tasks[first] else { throw ValidationError("the offline map carries no \(kind)") }
            return task
        }
    }

    static func point(_ text: String, _ option: String) throws -> (Double, Double) {
        let numbers = text.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count == 2 else { throw ValidationError("\(option): longitude,latitude") }
        return (numbers[0], numbers[1])
    }

    static func json(_ result: GeocodeResult) -> JSONValue {
        [
            "address": .string(result.label), "score": .double(result.score),
            "location": ["x": .double(result.location.longitude), "y": .double(result.location.latitude)],
            "attributes": .object(JSONObject(result.attributes.sorted { $0.key < $1.key }.map { (key: $0.key, value: .string($0.value)) })),
        ]
    }

    struct Geocode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Candidates for an address, from the offline map's locator.")
        @OptionGroup var tasks: Tasks
        @Option(name: .long, help: "The address, on one line.") var text: String
        @Option(name: .long, help: "The most candidates (1 to 50).") var max = 20

        func run() async throws {
            let found = try await tasks.locator().geocode(searchText: text, parameters: GeocodeParameters(maxResults: max))
            print((["candidates": .array(found.map(OfflineMap.json))] as JSONValue).jsonText)
        }
    }

    struct Suggest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Completions of a text being typed, from the offline map's locator.")
        @OptionGroup var tasks: Tasks
        @Option(name: .long, help: "The text typed so far.") var text: String
        @Option(name: .long, help: "The most suggestions (1 to 15).") var max = 5

        func run() async throws {
            let found = try await tasks.locator().suggest(searchText: text, parameters: GeocodeParameters(maxResults: max))
            let suggestions: [JSONValue] = found.map {
                ["text": .string($0.label), "magicKey": .string($0.magicKey), "isCollection": .bool($0.isCollection)]
            }
            print((["suggestions": .array(suggestions)] as JSONValue).jsonText)
        }
    }

    struct Reverse: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The address nearest a point, from the offline map's locator.")
        @OptionGroup var tasks: Tasks
        @Option(name: .long, help: "The point: longitude,latitude.") var at: String
        @Option(name: .long, help: "Metres (0 to 50,000).") var distance = 100.0

        func run() async throws {
            let (x, y) = try OfflineMap.point(at, "--at")
            let found = try await tasks.locator().reverseGeocode(location: GeocodePoint(longitude: x, latitude: y), maxDistanceMetres: distance)
            print((["results": .array(found.map(OfflineMap.json))] as JSONValue).jsonText)
        }
    }

    struct Route: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "A route between stops, from the offline map's network.")
        @OptionGroup var tasks: Tasks
        @Option(name: .long, help: "Stops: name=longitude,latitude (repeat, in order).") var stop: [String]
        @Option(name: .long, help: "Point barriers: longitude,latitude (repeat).") var barrier: [String] = []
        @Option(name: .long, help: "Length, TravelTime or Cost.") var impedance = "TravelTime"
        @Flag(name: .long, help: "Find the best order of the stops between the first and last.") var findBestSequence = false
        @Option(name: .long, help: "Directions in en, de or fr.") var language = "en"

        func run() async throws {
            var parameters = RouteParameters()
            for entry in stop {
                let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw ValidationError("--stop: name=longitude,latitude") }
                let (x, y) = try OfflineMap.point(parts[1], "--stop")
                parameters.stops.append(RoutePlace(name: parts[0], longitude: x, latitude: y))
            }
            parameters.pointBarriers = try barrier.enumerated().map { index, text in
                let (x, y) = try OfflineMap.point(text, "--barrier")
                return RoutePlace(name: "Barrier \(index + 1)", longitude: x, latitude: y)
            }
            guard let chosen = Impedance(rawValue: impedance) else { throw ValidationError("--impedance: Length, TravelTime or Cost") }
            parameters.impedance = chosen
            parameters.findsBestSequence = findBestSequence
            parameters.directionsLanguage = language
            let route = try await tasks.router().solveRoute(parameters)
            let directions: [JSONValue] = route.directions.map {
                ["text": .string($0.text), "maneuverType": .string($0.kind), "length": .double($0.metres), "time": .double($0.minutes)]
            }
            let answer: JSONValue = [
                "name": .string(route.name), "stopOrder": .array(route.stopOrder.map(JSONValue.string)),
                "totalMetres": .double(route.totalMetres),
                "totalMinutes": .double(route.totalMinutes), "directions": .array(directions),
            ]
            print(answer.jsonText)
        }
    }
}
