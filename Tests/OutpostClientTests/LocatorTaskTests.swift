import Foundation
import OutpostClient
import OutpostGeocoding
import OutpostTestSupport
import Synchronization
import Testing

/// `LocatorTask` online against a live `GeocodeServer` and offline from the locator file it
/// downloaded, asked after the server is gone (docs/client.md, "Geocoding"): the same answers
/// both ways, from one `LocatorSearch`.
@Suite struct LocatorTaskTests {
    /// One question of a locator, asked the same way online and offline.
    enum Question: Sendable, CustomStringConvertible {
        case line(String, GeocodeParameters = .init())
        case fields(MultiFieldAddress)
        case suggestThenGeocode(String)
        case reverse(GeocodePoint, metres: Double)

        var description: String {
            switch self {
            case .line(let text, _): "geocode \(text)"
            case .fields(let fields): "geocode \(fields)"
            case .suggestThenGeocode(let text): "suggest \(text)"
            case .reverse(let point, let metres): "reverse \(point) within \(metres) m"
            }
        }
    }

    static var questions: [Question] {
        let three = AddressTown.location(street: 0, number: 3)
        var nearShelbyville = GeocodeParameters()
        nearShelbyville.preferredSearchLocation = GeocodePoint(longitude: 13.5, latitude: 52.6)
        var onlyStationRoad = GeocodeParameters(maxResults: 5)
        // Station Road's first three points (13.4004 … 13.4012, 52.521).
        onlyStationRoad.searchArea = (13.3999, 52.5205, 13.4013, 52.5215)
        var strict = GeocodeParameters()
        strict.minScore = 99
        return [
            .line("3 Hill Street, Springfield"), .line("3 Hil Stret, Springfeld"), .line("5 Station Rd"), .line("1 Hill Street, Shelbyville"),
            .line("1 Hill Street", nearShelbyville), .line("2 Station Road", onlyStationRoad), .line("3 Hil Stret, Springfeld", strict),
            .line("zzqx"),
            .fields(MultiFieldAddress(address: "3 Hill St", city: "Springfield")), .suggestThenGeocode("3 Hill St, Spr"),
            .suggestThenGeocode("Chu"), .reverse(GeocodePoint(longitude: three.x + 0.00003, latitude: three.y), metres: 100),
            .reverse(GeocodePoint(longitude: 0, latitude: 0), metres: 100), .line("5 Station Road", onlyStationRoad),
        ]
    }

    static func ask(_ task: LocatorTask, _ question: Question) async throws -> [GeocodeResult] {
        switch question {
        case .line(let text, let parameters): return try await task.geocode(searchText: text, parameters: parameters)
        case .fields(let fields): return try await task.geocode(searchValues: fields)
        case .suggestThenGeocode(let text):
            let suggestions = try await task.suggest(searchText: text)
            var results: [GeocodeResult] = []
            for suggestion in suggestions {
                results += try await task.geocode(suggestion: suggestion)
                results.append(GeocodeResult(label: suggestion.label, score: -1, location: .init(longitude: 0, latitude: 0), attributes: [:]))
            }
            return results
        case .reverse(let point, let metres): return try await task.reverseGeocode(location: point, maxDistanceMetres: metres)
        }
    }

    @Test func offlineAnswersEqualTheServicesWithTheNetworkCut() async throws {
        let kept = TestFolders.make("locators")
        let online = Mutex<[[GeocodeResult]]>([])
        try await withLiveServer { serviceURL, store, _ in
            try AddressTown.makeLocator(store)
            let services = serviceURL.deletingLastPathComponent().deletingLastPathComponent()
            let task = LocatorTask(url: services.appendingPathComponent("TownAddresses/GeocodeServer"))
            for question in Self.questions {
                let results = try await Self.ask(task, question)
                online.withLock { $0.append(results) }
            }
            try await task.downloadLocator(to: "\(kept)/town.locator")
        }
        // The server is gone: the device answers alone.
        let device = try LocatorTask(locatorFile: "\(kept)/town.locator")
        let answers = online.withLock { $0 }
        #expect(answers.count == Self.questions.count)
        for (question, served) in zip(Self.questions, answers) {
            let found = try await Self.ask(device, question)
            #expect(found.map(\.label) == served.map(\.label), "\(question)")
            #expect(found.map(\.score) == served.map(\.score), "\(question)")
            #expect(found.map(\.attributes) == served.map(\.attributes), "\(question)")
            for (a, b) in zip(found, served) {
                #expect(
                    abs(a.location.longitude - b.location.longitude) < 1e-9 && abs(a.location.latitude - b.location.latitude) < 1e-9, "\(question)")
            }
        }
        // The questions are not all empty: each kind found what the town holds.
        #expect(answers[0].first?.label == "3 Hill Street, Springfield, 90210" && answers[0].first?.score == 100)
        #expect(answers[1].first?.label == answers[0].first?.label && (answers[1].first?.score ?? 100) < 100)
        #expect(answers[4].first?.attributes["City"] == "Shelbyville")
        #expect(answers[5].first?.label == "2 Station Road, Springfield, 90210" && answers[13].isEmpty, "outside the area: \(answers[13])")
        #expect(answers[6].isEmpty && answers[7].isEmpty)
        #expect(answers[8].first?.label == answers[0].first?.label)
        #expect(
            answers[9].first?.label == answers[0].first?.label && !answers[10].isEmpty && answers[10].allSatisfy { $0.label.contains("Church Lane") },
            "\(answers[10])")
        #expect(answers[11].first?.attributes["AddNum"] == "3" && answers[11].first?.attributes["Loc_name"] == "TownAddresses")
        #expect(answers[12].isEmpty)
    }

    @Test func parametersOutsideTheServicesBoundsAreRefusedOnBothSides() async throws {
        let kept = TestFolders.make("locator-bounds")
        let path = "\(kept)/one.locator"
        try LocatorFileFixtures.write(path)
        let device = try LocatorTask(locatorFile: path)
        let online = LocatorTask(url: URL(string: "http://127.0.0.1:9/arcgis/rest/services/Nope/GeocodeServer")!)
        for task in [device, online] {
            await #expect(throws: ClientError.self) {
                _ = try await task.geocode(searchText: "1 Hill Street", parameters: GeocodeParameters(maxResults: 51))
            }
            await #expect(throws: ClientError.self) { _ = try await task.suggest(searchText: "Hi", parameters: GeocodeParameters(maxResults: 16)) }
            await #expect(throws: ClientError.self) {
                _ = try await task.reverseGeocode(location: GeocodePoint(longitude: 200, latitude: 0))
            }
        }
        #expect(try await device.geocode(searchText: "1 Hill Street").first?.label == "1 Hill Street, Springfield")
    }
}
