import FuzzCommon
import OutpostGeocoding
import OutpostService
import OutpostStorage
import OutpostWire

// A GeocodeServer request end to end above the store (LocatorAnswers over a fixed in-memory
// index): its parameters (GeocodeRequest), the address parsers, SearchTerms, matching,
// suggest, reverse geocoding and geocodeAddresses' records.
// Input: the first byte picks the operation (from 0xF0: the organisation's choice of utility
// services, `HelperServiceChoice`, from `portals/self/update`'s parameters); then lines of
// name=value parameters.
// Oracles: an answer or an ArcGISError, never a crash; at most maxLocations candidates; one
// location per record; every search expression holds only quoted [a-z0-9] tokens.

struct MemoryLocators: LocatorStore {
    static let definition = LocatorDefinition(name: "Fuzz", service: "Fuzz", layer: 0, kind: .pointAddress, fields: .init())
    static let stored = StoredLocator(
        definition: definition, entryCount: entries.count, refused: [:], knownLocalities: [["springfield"], ["shelbyville"]], builtAt: 0)
    static let entries: [LocatorEntry] = {
        var entries: [LocatorEntry] = []
        for (index, street) in ["Hill Street", "St Marys Rd", "Rue de l'Église", "12th Avenue"].enumerated() {
            for number in 1...5 {
                let fields = LocatorSourceFields(
                    houseNumber: String(number), street: street, locality: index % 2 == 0 ? "Springfield" : "Shelbyville")
                let location = WebMercator.point(longitude: 13.4 + Double(number) * 0.0004, latitude: 52.52 + Double(index) * 0.001)
                if let entry = try? LocatorEntry.make(id: "\(index)-\(number)", kind: .pointAddress, fields: fields, location: location) {
                    entries.append(entry)
                }
            }
        }
        let line = [[1_491_000.0, 6_894_000.0], [1_492_000.0, 6_894_100.0]]
        let ranges = HouseNumberRanges(leftFrom: 1, leftTo: 99, rightFrom: 2, rightTo: 98)
        if let entry = try? LocatorEntry.make(
            id: "line", kind: .streetCenterline, fields: LocatorSourceFields(street: "Long Road", locality: "Springfield", ranges: ranges),
            polyline: line)
        {
            entries.append(entry)
        }
        return entries
    }()

    func locators() throws -> [StoredLocator] { [Self.stored] }
    func locator(named name: String) throws -> StoredLocator? { Self.stored }
    func saveLocator(_ locator: StoredLocator, entries: [LocatorEntry]) throws {}
    func deleteLocator(named name: String) throws {}
    func gatherEntries(locator name: String, terms: SearchTerms, limit: Int) throws -> [LocatorEntry] {
        for expression in [
            terms.fts5WholeExpression, terms.fts5Expression, terms.fts5AnyExpression, terms.fts5TrigramExpression, terms.tsQueryExpression,
            terms.tsQueryWholeExpression,
        ].compactMap({ $0 }) {
            fuzzCheck(onlyQuotedTokens(expression), "an expression holds more than quoted tokens: \(expression)")
        }
        return Array(Self.entries.prefix(limit))
    }
    func entries(locator name: String, in box: LocatorBox, limit: Int) throws -> [LocatorEntry] { Array(Self.entries.prefix(limit)) }
    func entry(locator name: String, kind: LocatorEntry.Kind, id: String) throws -> LocatorEntry? {
        Self.entries.first { $0.kind == kind && $0.id == id }
    }
    func updateLocator(
        _ locator: StoredLocator, upserting entries: [LocatorEntry], deleting ids: [String], replacing previous: StoredLocator
    )
        throws -> Int?
    { Self.entries.count }
    func forEachEntryRow(locator name: String, _ body: (LocatorEntryRow) throws -> Void) throws {
        for entry in Self.entries { try body(try LocatorEntryRow(entry)) }
    }

    /// Outside quotes only the operators the recipe writes: AND, OR, &, |, `*`, `:*`, spaces.
    func onlyQuotedTokens(_ expression: String) -> Bool {
        var inside = false
        var quote: Character = "\""
        var outside = ""
        for character in expression {
            if inside {
                if character == quote {
                    inside = false
                } else if !(character.isASCII && (character.isLowercase || character.isNumber)) {
                    return false
                }
            } else if character == "\"" || character == "'" {
                inside = true
                quote = character
            } else {
                outside.append(character)
            }
        }
        return !inside && outside.split(separator: " ").allSatisfy { ["AND", "OR", "&", "|", "*", ":*"].contains(String($0)) }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let input = FuzzInput(start, count)
    guard let (operation, rest) = input.split else { return 0 }
    var pairs: [(String, String)] = []
    for line in String(decoding: rest, as: UTF8.self).split(separator: "\n").prefix(16) {
        let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        pairs.append((parts[0], parts.count > 1 ? parts[1] : ""))
    }
    let parameters = RequestParameters(pairs)
    if operation >= 0xF0 {
        fuzzHelperServiceChoice(parameters)
        return 0
    }
    let answers = LocatorAnswers(store: MemoryLocators())
    let locator = MemoryLocators.stored
    do {
        switch operation % 4 {
        case 0:
            let answer = try answers.findAddressCandidates(locator, parameters)
            let asked = (try? parameters.int("maxLocations")) ?? nil
            fuzzCheck((answer["candidates"]?.arrayValue?.count ?? 0) <= (asked ?? GeocodeRequest.maximumLocations), "more candidates than asked")
        case 1:
            let answer = try answers.suggest(locator, parameters)
            fuzzCheck((answer["suggestions"]?.arrayValue?.count ?? 0) <= AddressMatcher.maximumSuggestions, "more than 15 suggestions")
        case 2: _ = try answers.reverseGeocode(locator, parameters)
        default:
            let answer = try answers.geocodeAddresses(locator, parameters)
            let records = (try? JSONParser.parse(parameters.string("addresses") ?? ""))?["records"]?.arrayValue?.count
            fuzzCheck(answer["locations"]?.arrayValue?.count == records, "one location per record")
        }
    } catch is ArcGISError {
        // Refused with ArcGIS's error: what bad input gets.
    } catch {
        fuzzCheck(false, "an error that is not ArcGIS's: \(error)")
    }
    return 0
}

/// Oracles: a choice or an ArcGISError; it names only locators and networks that exist, at
/// most 16 geocoders, no name twice, at most one route.
func fuzzHelperServiceChoice(_ parameters: RequestParameters) {
    let locators = ["Fuzz", "Places"]
    let networks = ["Roads"]
    do {
        let choice = try HelperServiceChoice().updated(by: parameters, locators: locators, networks: networks)
        let geocode = choice.geocode ?? []
        fuzzCheck(geocode.allSatisfy(locators.contains) && geocode.count <= HelperServiceChoice.maximumGeocoders, "an unknown geocoder: \(geocode)")
        fuzzCheck(Set(geocode).count == geocode.count, "a geocoder twice: \(geocode)")
        fuzzCheck(
            (choice.route ?? []).allSatisfy(networks.contains) && (choice.route ?? []).count <= 1,
            "an unknown route: \(String(describing: choice.route))")
    } catch {
        // `updated` throws only ArcGISError (typed throws): what bad input gets.
    }
}

@main
enum FuzzGeocodeMain {
    static func main() {
        runFuzzer { data, size in fuzz(data.map(UnsafeRawPointer.init) ?? emptyInput, size) }
    }
}
