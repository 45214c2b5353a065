import OutpostGeoPackage
import OutpostGeocoding
import OutpostStorage
import OutpostWire

/// A `GeocodeServer`'s answers over the locators' index (docs/geocoding.md, "Service"): the
/// store gathers entries, `OutpostGeocoding` matches and ranks them, this writes ArcGIS's JSON.
public struct LocatorAnswers<Store: LocatorStore>: Sendable {
    public let store: Store

    public init(store: Store) { self.store = store }

    /// The locator the path names, or ArcGIS's 404.
    public func locator(named name: String) throws -> StoredLocator {
        guard let locator = try store.locator(named: name) else {
            throw ArcGISError(kind: .notFound, message: "Service not found.", details: ["There is no GeocodeServer '\(name)'."])
        }
        return locator
    }

    /// `findAddressCandidates`: a single line, the multi-field parameters, or a suggestion's
    /// `magicKey` (with the suggestion's text).
    public func findAddressCandidates(_ locator: StoredLocator, _ parameters: RequestParameters) throws -> JSONValue {
        let request = try GeocodeRequest.parse(parameters)
        let address = GeocodeRequest.address { parameters.string($0) }
        guard address.singleLine != nil || address.fields != nil else {
            throw ArcGISError(
                kind: .missingParameter, message: "Unable to complete operation.", details: ["An address is required: SingleLine or Address."])
        }
        let search = search(locator)
        let query = search.parse(singleLine: address.singleLine, fields: address.fields)
        let candidates: [GeocodeCandidate]
        if let raw = parameters.string("magicKey") {
            guard let key = MagicKey(encoded: raw) else { throw ArcGISError.invalidParameter("magicKey", "not a key this locator gave") }
            candidates = try search.findCandidates(query, key: key, maxLocations: request.maxLocations, minScore: request.minScore)
        } else {
            candidates = try search.findCandidates(query, maxLocations: request.maxLocations, preferences: request.preferences)
        }
        return [
            "spatialReference": request.outSR.spatialReference.json,
            "candidates": .array(candidates.map { candidateJSON($0, locator, request) }),
        ]
    }

    /// `suggest`: `text` being typed; `maxSuggestions` at most 15.
    public func suggest(_ locator: StoredLocator, _ parameters: RequestParameters) throws -> JSONValue {
        let request = try GeocodeRequest.parse(parameters)
        guard let text = parameters.string("text") else {
            throw ArcGISError(kind: .missingParameter, message: "Unable to complete operation.", details: ["'text' is required."])
        }
        let count = try parameters.int("maxSuggestions") ?? 5
        guard (1...AddressMatcher.maximumSuggestions).contains(count) else {
            throw ArcGISError.invalidParameter("maxSuggestions", "1 to \(AddressMatcher.maximumSuggestions)")
        }
        let suggestions = try search(locator).suggest(text, maxSuggestions: count, preferences: request.preferences)
        return [
            "suggestions": .array(
                suggestions.map { ["text": .string($0.text), "magicKey": .string($0.magicKey), "isCollection": .bool($0.isCollection)] })
        ]
    }

    /// `reverseGeocode`: the address nearest `location` within `distance` metres (100).
    public func reverseGeocode(_ locator: StoredLocator, _ parameters: RequestParameters) throws -> JSONValue {
        let request = try GeocodeRequest.parse(parameters)
        guard let point = try GeocodeRequest.point(parameters, "location") else {
            throw ArcGISError(kind: .missingParameter, message: "Unable to complete operation.", details: ["'location' is required."])
        }
        let metres = try GeocodeRequest.distance(parameters, default: GeocodeRequest.defaultReverseDistanceMetres) ?? 100
        guard let answer = try search(locator).reverseGeocode(point, metres: metres) else {
            throw ArcGISError(
                kind: .invalidParameter, message: "Cannot perform query. Invalid query parameters.",
                details: ["Unable to find address for the specified location."])
        }
        let (x, y) = request.outSR.coordinates(of: answer.found.location)
        return [
            "address": .object(JSONObject(answer.attributes(locatorName: locator.name).map { (key: $0.name, value: .string($0.value)) })),
            "location": ["x": .double(x), "y": .double(y), "spatialReference": request.outSR.spatialReference.json],
        ]
    }

    /// `geocodeAddresses`: `addresses` as `{"records":[{"attributes":{"OBJECTID":…,"SingleLine":…}}]}`,
    /// at most `GeocodeRequest.maximumBatchSize`; each record's best candidate, in the records' order.
    public func geocodeAddresses(_ locator: StoredLocator, _ parameters: RequestParameters) throws -> JSONValue {
        let request = try GeocodeRequest.parse(parameters)
        guard let text = parameters.string("addresses") else {
            throw ArcGISError(kind: .missingParameter, message: "Unable to complete operation.", details: ["'addresses' is required."])
        }
        guard let json = try? JSONParser.parse(text), let records = json["records"]?.arrayValue else {
            throw ArcGISError.invalidParameter("addresses", #"expected {"records":[{"attributes":{…}}]}"#)
        }
        guard records.count <= GeocodeRequest.maximumBatchSize else {
            throw ArcGISError.invalidParameter("addresses", "at most \(GeocodeRequest.maximumBatchSize) records a request (MaxBatchSize)")
        }
        // Every record's id checked before any is matched: a bad batch does no work.
        let ids = try Self.resultIds(records)
        let search = search(locator)
        var locations: [JSONValue] = []
        for (record, id) in zip(records, ids) {
            let attributes = record["attributes"]?.objectValue ?? JSONObject()
            func value(_ name: String) -> String? {
                guard let given = attributes.value(forCaseInsensitiveKey: name) else { return nil }
                let text: String? =
                    switch given {
                    case .string(let text): text
                    case .int(let number): String(number)
                    case .double(let number): number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
                    default: nil
                    }
                return text.flatMap { $0.trimmingWhitespace().isEmpty ? nil : $0.trimmingWhitespace() }
            }
            let address = GeocodeRequest.address(value)
            let best = try search.findCandidates(
                search.parse(singleLine: address.singleLine, fields: address.fields), maxLocations: 1, preferences: request.preferences,
                entries: GeocodeRequest.batchEntriesPerRecord
            ).first
            var answer = best.map { candidateJSON($0, locator, request, allFields: true) } ?? ["address": "", "score": 0, "attributes": [:]]
            var fields = answer["attributes"]?.objectValue ?? JSONObject()
            fields["ResultID"] = .int(id)
            fields["Status"] = .string(best == nil ? "U" : "M")
            fields["Loc_name"] = .string(locator.name)
            answer =
                answer.objectValue.map { object in
                    var object = object
                    object["attributes"] = .object(fields)
                    return .object(object)
                } ?? answer
            locations.append(answer)
        }
        return ["spatialReference": request.outSR.spatialReference.json, "locations": .array(locations)]
    }

    /// Each record's `ResultID`: its `OBJECTID` (an integer, or text of one), else its index;
    /// an id that is no integer, or one two records share, refuses the batch.
    static func resultIds(_ records: [JSONValue]) throws(ArcGISError) -> [Int64] {
        var seen = Set<Int64>()
        var ids: [Int64] = []
        for (index, record) in records.enumerated() {
            let given = record["attributes"]?.objectValue?.value(forCaseInsensitiveKey: "OBJECTID")
            let id: Int64?
            switch given {
            case nil, .null?: id = Int64(index)
            case .int(let number)?: id = number
            case .double(let number)?: id = Int64(exactly: number)
            case .string(let text)?: id = Int64(text.trimmingWhitespace())
            default: id = nil
            }
            guard let id else { throw .invalidParameter("addresses", "record \(index): OBJECTID must be an integer") }
            guard seen.insert(id).inserted else { throw .invalidParameter("addresses", "record \(index): OBJECTID \(id) is another record's") }
            ids.append(id)
        }
        return ids
    }

    /// Writes the locator as a locator file at `path` (`exportLocator`): its row as stored,
    /// then every entry's, as the store keeps them.
    /// Writes the locator named `name` as a locator file at `path`; returns the locator the
    /// file holds. Its entries are read page by page, holding no transaction open, so a
    /// refresh may commit meanwhile: the locator's row is read again after the last page, and
    /// a file that may mix two states is written again (three tries; then 503).
    public func writeFile(named name: String, to path: String) throws -> StoredLocator {
        for _ in 0..<Self.exportAttempts {
            let locator = try self.locator(named: name)
            try LocatorFile.write(to: path, name: locator.name, definition: locator.json, builtAt: locator.builtAt) { emit in
                try store.forEachEntryRow(locator: locator.name, emit)
            }
            if try store.locator(named: locator.name) == locator { return locator }
        }
        throw ArcGISError(
            kind: .unavailable, message: "The locator is being refreshed.", details: ["It changed while its file was written: try again shortly."])
    }

    static var exportAttempts: Int { 3 }

    func search(_ locator: StoredLocator) -> LocatorSearch<StoreLocatorIndex<Store>> {
        LocatorSearch(index: StoreLocatorIndex(store: store, locator: locator))
    }

    /// A candidate as ArcGIS writes one; `attributes` holds what `outFields` asked (`*`: all).
    func candidateJSON(_ candidate: GeocodeCandidate, _ locator: StoredLocator, _ request: GeocodeRequest, allFields: Bool = false) -> JSONValue {
        let (x, y) = request.outSR.coordinates(of: candidate.location)
        var all = JSONObject()
        all["Loc_name"] = .string(locator.name)
        all["Status"] = "M"
        for (name, value) in candidate.attributes.sorted(by: { $0.key < $1.key }) {
            all[name] = name == "Score" ? .double(candidate.score) : .string(value)
        }
        all["X"] = .double(x)
        all["Y"] = .double(y)
        all["DisplayX"] = .double(x)
        all["DisplayY"] = .double(y)
        let asked = Set(request.outFields.map { $0.lowercased() })
        let attributes =
            allFields || asked.contains("*")
            ? all : JSONObject(all.filter { asked.contains($0.key.lowercased()) }.map { (key: $0.key, value: $0.value) })
        let margin = request.outSR == .wgs84 ? 0.001 : 100.0
        return [
            "address": .string(candidate.matchAddress),
            "location": ["x": .double(x), "y": .double(y)],
            "score": .double(candidate.score),
            "attributes": .object(attributes),
            "extent": ["xmin": .double(x - margin), "ymin": .double(y - margin), "xmax": .double(x + margin), "ymax": .double(y + margin)],
        ]
    }
}
