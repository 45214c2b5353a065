/// The words of directions (`directionsLanguage`): English, German and French. Any other
/// language is answered in English, as ArcGIS's route services do.
public enum DirectionsLanguage: String, Sendable, CaseIterable {
    case english = "en"
    case german = "de"
    case french = "fr"

    /// The language of a code such as `en`, `en-US`, `de_DE` or `fr`; English otherwise.
    public init(code: String?) {
        let primary = (code ?? "").lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init) ?? ""
        self = DirectionsLanguage(rawValue: primary) ?? .english
    }

    func start(_ stop: String) -> String {
        switch self {
        case .english: "Start at \(stop)"
        case .german: "Start bei \(stop)"
        case .french: "Départ de \(stop)"
        }
    }

    func depart(_ stop: String) -> String {
        switch self {
        case .english: "Depart \(stop)"
        case .german: "Abfahrt von \(stop)"
        case .french: "Quittez \(stop)"
        }
    }

    func arrive(_ stop: String) -> String {
        switch self {
        case .english: "Arrive at \(stop)"
        case .german: "Ankunft bei \(stop)"
        case .french: "Arrivée à \(stop)"
        }
    }

    func finish(_ stop: String) -> String {
        switch self {
        case .english: "Finish at \(stop)"
        case .german: "Ziel: \(stop)"
        case .french: "Arrivée finale à \(stop)"
        }
    }

    func head(_ compass: RouteDirections.Compass, _ road: String) -> String {
        let direction = compassWord(compass)
        switch self {
        case .english: return road.isEmpty ? "Go \(direction)" : "Go \(direction) on \(road)"
        case .german: return road.isEmpty ? "Fahren Sie nach \(direction)" : "Fahren Sie nach \(direction) auf \(road)"
        case .french: return road.isEmpty ? "Allez vers le \(direction)" : "Allez vers le \(direction) sur \(road)"
        }
    }

    func turn(_ kind: Maneuver.Kind, _ road: String) -> String {
        let verb = turnWords(kind)
        guard !road.isEmpty else { return verb }
        switch self {
        case .english: return "\(verb) on \(road)"
        case .german: return "\(verb) auf \(road)"
        case .french: return "\(verb) sur \(road)"
        }
    }

    private func turnWords(_ kind: Maneuver.Kind) -> String {
        switch (self, kind) {
        case (.english, .bearLeft): "Bear left"
        case (.english, .bearRight): "Bear right"
        case (.english, .turnLeft): "Turn left"
        case (.english, .turnRight): "Turn right"
        case (.english, .sharpLeft): "Make a sharp left"
        case (.english, .sharpRight): "Make a sharp right"
        case (.english, .uTurn): "Make a U-turn"
        case (.english, _): "Continue"
        case (.german, .bearLeft): "Halten Sie sich links"
        case (.german, .bearRight): "Halten Sie sich rechts"
        case (.german, .turnLeft): "Biegen Sie links ab"
        case (.german, .turnRight): "Biegen Sie rechts ab"
        case (.german, .sharpLeft): "Biegen Sie scharf links ab"
        case (.german, .sharpRight): "Biegen Sie scharf rechts ab"
        case (.german, .uTurn): "Wenden Sie"
        case (.german, _): "Fahren Sie weiter"
        case (.french, .bearLeft): "Serrez à gauche"
        case (.french, .bearRight): "Serrez à droite"
        case (.french, .turnLeft): "Tournez à gauche"
        case (.french, .turnRight): "Tournez à droite"
        case (.french, .sharpLeft): "Tournez franchement à gauche"
        case (.french, .sharpRight): "Tournez franchement à droite"
        case (.french, .uTurn): "Faites demi-tour"
        case (.french, _): "Continuez"
        }
    }

    private func compassWord(_ compass: RouteDirections.Compass) -> String {
        let words: [String] =
            switch self {
            case .english: ["north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest"]
            case .german: ["Norden", "Nordosten", "Osten", "Südosten", "Süden", "Südwesten", "Westen", "Nordwesten"]
            case .french: ["nord", "nord-est", "est", "sud-est", "sud", "sud-ouest", "ouest", "nord-ouest"]
            }
        return words[compass.rawValue]
    }
}
