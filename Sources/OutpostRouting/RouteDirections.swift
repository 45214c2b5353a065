import Foundation
import OutpostGeocoding

/// One instruction of a route's directions, as ArcGIS names its maneuvers.
public struct Maneuver: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case depart = "esriDMTDepart"
        case straight = "esriDMTStraight"
        case bearLeft = "esriDMTBearLeft"
        case bearRight = "esriDMTBearRight"
        case turnLeft = "esriDMTTurnLeft"
        case turnRight = "esriDMTTurnRight"
        case sharpLeft = "esriDMTSharpLeft"
        case sharpRight = "esriDMTSharpRight"
        case uTurn = "esriDMTUTurn"
        case stop = "esriDMTStop"
    }

    public var kind: Kind
    public var text: String
    /// Metres and minutes from this instruction to the next.
    public var length: Double
    public var minutes: Double
    public var path: [PlanarPoint]
}

/// Directions for a solved route (docs/routing.md, "Directions"): per leg, a departure, one
/// instruction per run of edges of one street name (its turn from the bearing change), and
/// an arrival; the last arrival is the finish.
public enum RouteDirections {
    public static func make(_ route: SolvedRoute, network: RoadNetwork, language: DirectionsLanguage) -> [Maneuver] {
        var maneuvers: [Maneuver] = []
        for (index, leg) in route.legs.enumerated() {
            let from = route.stops[index]
            let to = route.stops[index + 1]
            let departure = index == 0 ? language.start(from.name) : language.depart(from.name)
            maneuvers.append(Maneuver(kind: .depart, text: departure, length: 0, minutes: 0, path: [from.location.snapped]))
            var previous: [PlanarPoint] = []
            for run in runs(leg.pieces, network) {
                let path = network.path(of: run)
                let name = network.name(of: run[0].edge)
                let kind = previous.isEmpty ? Maneuver.Kind.straight : turn(from: previous, to: path)
                let text =
                    previous.isEmpty
                    ? language.head(compass(bearing(path, atStart: true)), name) : language.turn(kind, name)
                maneuvers.append(
                    Maneuver(
                        kind: kind, text: text, length: run.reduce(0) { $0 + network.length(of: $1) },
                        minutes: run.reduce(0) { $0 + network.minutes(of: $1) }, path: path))
                previous = path
            }
            let last = index == route.legs.count - 1
            maneuvers.append(
                Maneuver(
                    kind: .stop, text: last ? language.finish(to.name) : language.arrive(to.name), length: 0, minutes: 0, path: [to.location.snapped])
            )
        }
        return maneuvers
    }

    /// Consecutive pieces of one street name (pieces of no length dropped).
    static func runs(_ pieces: [PathPiece], _ network: RoadNetwork) -> [[PathPiece]] {
        var runs: [[PathPiece]] = []
        for piece in pieces where network.length(of: piece) > 0 {
            if let last = runs.last?.last, network.edgeName[last.edge] == network.edgeName[piece.edge], !network.name(of: piece.edge).isEmpty {
                runs[runs.count - 1].append(piece)
            } else {
                runs.append([piece])
            }
        }
        return runs
    }

    /// Degrees clockwise from north of a path's first (or last) step.
    static func bearing(_ path: [PlanarPoint], atStart: Bool) -> Double {
        let distinct = path.reduce(into: [PlanarPoint]()) { if $0.last != $1 { $0.append($1) } }
        guard distinct.count >= 2 else { return 0 }
        let (a, b) = atStart ? (distinct[0], distinct[1]) : (distinct[distinct.count - 2], distinct[distinct.count - 1])
        let degrees = atan2(b.x - a.x, b.y - a.y) * 180 / .pi
        return degrees < 0 ? degrees + 360 : degrees
    }

    /// The turn between the end of one path and the start of the next, by the bearing change.
    static func turn(from previous: [PlanarPoint], to next: [PlanarPoint]) -> Maneuver.Kind {
        var change = bearing(next, atStart: true) - bearing(previous, atStart: false)
        if change > 180 { change -= 360 }
        if change <= -180 { change += 360 }
        switch abs(change) {
        case ..<20: return .straight
        case ..<45: return change > 0 ? .bearRight : .bearLeft
        case ..<135: return change > 0 ? .turnRight : .turnLeft
        case ..<170: return change > 0 ? .sharpRight : .sharpLeft
        default: return .uTurn
        }
    }

    /// The compass point of a bearing, of eight.
    static func compass(_ bearing: Double) -> Compass {
        Compass.allCases[Int(((bearing + 22.5) / 45).rounded(.down)) % 8]
    }

    public enum Compass: Int, CaseIterable, Sendable {
        case north, northeast, east, southeast, south, southwest, west, northwest
    }
}
