import Foundation
import FuzzCommon
import OutpostGeocoding
import OutpostRouting
import OutpostService
import OutpostStorage
import OutpostWire

// A route solve end to end above the store (RouteAnswers over a fixed in-memory network): its
// parameters (RouteRequest), locating stops and barriers, shortest paths, sequencing,
// directions and the answer's JSON; and the network's stored form read from hostile bytes.
// Input: the first byte picks solve (0–2) or decoding (3); then lines of name=value
// parameters, or the bytes to decode.
// Oracles: an answer or an ArcGISError, never a crash; finite, non-negative totals; no more
// stops than the bound; a decoded network encodes to bytes that decode to it again.

struct MemoryNetworks: NetworkStore {
    /// A 6 × 6 grid 0.001° apart from (13.40, 52.50), one one-way row and one restricted block.
    static let graph: RoadNetwork = {
        var builder = RoadNetworkBuilder()
        var id: Int64 = 0
        func point(_ column: Int, _ row: Int) -> PlanarPoint {
            WebMercator.point(longitude: 13.40 + Double(column) * 0.001, latitude: 52.50 + Double(row) * 0.001)
        }
        for row in 0..<6 {
            for column in 0..<5 {
                id += 1
                builder.add(
                    NetworkSourceLine(
                        id: id, vertices: [point(column, row), point(column + 1, row)], name: "Row \(row)", directions: row == 1 ? .forward : .both))
                id += 1
                builder.add(
                    NetworkSourceLine(
                        id: id, vertices: [point(row, column), point(row, column + 1)], name: "Column \(row)", restricted: row == 2 && column == 2))
            }
        }
        return builder.network
    }()
    static let stored = StoredNetwork(
        definition: NetworkDefinition(name: "Fuzz", service: "Fuzz", layer: 0, fields: .init()), edgeCount: graph.edgeCount,
        junctionCount: graph.junctionCount, refused: [:], extent: [13.4, 52.5, 13.405, 52.505], builtAt: 0, buildId: "fuzz")

    func networks() throws -> [StoredNetwork] { [Self.stored] }
    func network(named name: String) throws -> StoredNetwork? { Self.stored }
    func graph(ofNetwork name: String) throws -> Data? { Self.graph.encoded() }
    func saveNetwork(_ network: StoredNetwork, graph: Data) throws {}
    func deleteNetwork(named name: String) throws {}
}

let cache = NetworkCache()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    guard let (operation, rest) = input.split else { return 0 }
    if operation % 4 == 3 {
        guard let network = try? RoadNetwork(decoding: Data(rest)) else { return 0 }
        fuzzCheck((try? RoadNetwork(decoding: network.encoded())) == network, "a decoded network does not survive its own encoding")
        _ = network.adjacency()
        return 0
    }
    var pairs: [(String, String)] = []
    for line in String(decoding: rest, as: UTF8.self).split(separator: "\n").prefix(24) {
        let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        pairs.append((parts[0], parts.count > 1 ? parts[1] : ""))
    }
    let answers = RouteAnswers(store: MemoryNetworks(), cache: cache)
    do {
        let answer = try answers.solve(MemoryNetworks.stored, RequestParameters(pairs))
        if let attributes = answer["routes"]?["features"]?[0]?["attributes"] {
            for name in ["Total_Length", "Total_TravelTime"] {
                let value = attributes[name]?.doubleValue ?? -1
                fuzzCheck(value.isFinite && value >= 0, "\(name) is \(value)")
            }
            fuzzCheck((attributes["StopCount"]?.int64Value ?? 0) <= Int64(RouteRequest.maximumStops), "more stops than the bound")
        }
    } catch is ArcGISError {
        // Refused with ArcGIS's error: what bad input gets.
    } catch {
        fuzzCheck(false, "an error that is not ArcGIS's: \(error)")
    }
    return 0
}

@main
enum FuzzRouteMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
