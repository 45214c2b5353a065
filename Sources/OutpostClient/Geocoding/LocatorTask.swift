import Foundation
import OutpostGeoPackage
import OutpostGeocoding
import OutpostWire

/// Addresses found by a `GeocodeServer`, or on the device from a locator taken offline (after
/// the ArcGIS Maps SDKs' `LocatorTask`; docs/client.md, "Geocoding"). Offline it asks a
/// `LocatorFile` what the service asks its store, through the same `LocatorSearch`, so both
/// answer alike.
public struct LocatorTask: Sendable {
    enum Source: Sendable {
        case service(ServiceConnection)
        case device(LocatorFile)
    }

    let source: Source
    /// The most bytes a locator file may hold before it is opened.
    public static let maximumLocatorBytes = 4 << 30
    /// The service's most `maxLocations` and `maxSuggestions`.
    public static let maximumResults = 50
    public static let maximumSuggestions = AddressMatcher.maximumSuggestions
    /// Attributes of the service's candidates that are numbers or bookkeeping, not the address.
    static let serviceOnly: Set<String> = ["Score", "Status", "X", "Y", "DisplayX", "DisplayY"]

    /// Online: `url` is the locator (`…/rest/services/<name>/GeocodeServer`).
    public init(url: URL, token: String? = nil, allowsUntrustedCertificates: Bool = false, transport: (any HTTPTransport)? = nil) {
        source = .service(
            ServiceConnection(serviceURL: url, token: token, allowsUntrustedCertificates: allowsUntrustedCertificates, transport: transport))
    }

    /// Offline: a locator file `downloadLocator` wrote, opened read-only and checked as
    /// untrusted (`LocatorFile`): its size first, then its format and every table.
    public init(locatorFile path: String) throws {
        // The size of what is read: a link's target, which must be a regular file (not a pipe).
        let size = OfflineMapTasks.regularFileSize(URL(fileURLWithPath: path).resolvingSymlinksInPath().path)
        guard let size, size <= Self.maximumLocatorBytes else { throw ClientError.geodatabase("\(path) is no locator file of at most 4 GiB") }
        do { source = .device(try LocatorFile(path: path)) } catch { throw ClientError.geodatabase("\(path): \(error)") }
    }

    /// Takes the service's locator offline: its locator file, written beside `path` and renamed
    /// into place. Open it with `init(locatorFile:)`.
    public func downloadLocator(to path: String) async throws {
        guard case .service(let connection) = source else { throw ClientError.unsupported("the locator is already on the device") }
        let partial = path + ".part"
        try? FileManager.default.removeItem(atPath: partial)
        // One request: the service writes the file anew for each, so it is not fetched in ranges.
        _ = try await connection.downloadFile(connection.url("exportLocator"), to: partial, chunk: Self.maximumLocatorBytes)
        do { _ = try LocatorFile(path: partial) } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw ClientError.invalidResponse("the service's locator file: \(error)")
        }
        guard rename(partial, path) == 0 else { throw ClientError.geodatabase("could not put the locator at \(path) (errno \(errno))") }
    }

    /// Candidates for one line of text, best first.
    public func geocode(searchText: String, parameters: GeocodeParameters = .init()) async throws -> [GeocodeResult] {
        try parameters.check(most: Self.maximumResults)
        switch source {
        case .service(let connection):
            return try await candidates(connection, [("SingleLine", searchText)], parameters)
        case .device(let file):
            let search = LocatorSearch(index: file)
            return try search.findCandidates(
                search.parse(singleLine: searchText, fields: nil), maxLocations: parameters.maxResults, preferences: parameters.preferences
            ).map { result($0, file) }
        }
    }

    /// Candidates for an address in parts (`Address`, `Address2`, `City`, `Postal`, `Region`).
    public func geocode(searchValues: MultiFieldAddress, parameters: GeocodeParameters = .init()) async throws -> [GeocodeResult] {
        try parameters.check(most: Self.maximumResults)
        switch source {
        case .service(let connection):
            let parts: [(String, String?)] = [
                ("Address", searchValues.address), ("Address2", searchValues.address2), ("City", searchValues.city),
                ("Postal", searchValues.postal), ("Region", searchValues.region),
            ]
            return try await candidates(connection, parts.compactMap { name, value in value.map { (name, $0) } }, parameters)
        case .device(let file):
            let search = LocatorSearch(index: file)
            return try search.findCandidates(
                search.parse(singleLine: nil, fields: searchValues), maxLocations: parameters.maxResults, preferences: parameters.preferences
            ).map { result($0, file) }
        }
    }

    /// Completions of a text being typed (`maxResults` at most 15).
    public func suggest(searchText: String, parameters: GeocodeParameters = GeocodeParameters(maxResults: 5)) async throws -> [SuggestResult] {
        try parameters.check(most: Self.maximumSuggestions)
        switch source {
        case .service(let connection):
            let answer = try await connection.getJSON(
                connection.url("suggest"), [("text", searchText), ("maxSuggestions", String(parameters.maxResults))] + parameters.queryFields)
            return (answer["suggestions"]?.arrayValue ?? []).map { suggestion in
                SuggestResult(
                    label: suggestion["text"]?.stringValue ?? "", magicKey: suggestion["magicKey"]?.stringValue ?? "",
                    isCollection: suggestion["isCollection"]?.boolValue ?? false)
            }
        case .device(let file):
            return try LocatorSearch(index: file).suggest(searchText, maxSuggestions: parameters.maxResults, preferences: parameters.preferences)
                .map { SuggestResult(label: $0.text, magicKey: $0.magicKey, isCollection: $0.isCollection) }
        }
    }

    /// The candidates of a suggestion: the entry its key names, matched with its text.
    public func geocode(suggestion: SuggestResult, parameters: GeocodeParameters = .init()) async throws -> [GeocodeResult] {
        try parameters.check(most: Self.maximumResults)
        switch source {
        case .service(let connection):
            return try await candidates(connection, [("SingleLine", suggestion.label), ("magicKey", suggestion.magicKey)], parameters)
        case .device(let file):
            guard let key = MagicKey(encoded: suggestion.magicKey) else {
                throw ClientError.server(
                    code: 400, message: "Unable to complete operation.", details: ["Invalid parameter 'magicKey': not a key this locator gave."])
            }
            let search = LocatorSearch(index: file)
            return try search.findCandidates(
                search.parse(singleLine: suggestion.label, fields: nil), key: key, maxLocations: parameters.maxResults,
                minScore: parameters.minScore
            ).map { result($0, file) }
        }
    }

    /// The address nearest `location` within `maxDistanceMetres` (0 to 50,000; 100 as the
    /// service's default); none when nothing is that near.
    public func reverseGeocode(location: GeocodePoint, maxDistanceMetres: Double = 100) async throws -> [GeocodeResult] {
        guard location.isValid, maxDistanceMetres.isFinite, (0...50_000).contains(maxDistanceMetres) else {
            throw ClientError.server(
                code: 400, message: "Unable to complete operation.", details: ["A longitude and latitude, and 0 to 50,000 metres."])
        }
        switch source {
        case .service(let connection):
            let answer: JSONValue
            do {
                answer = try await connection.getJSON(
                    connection.url("reverseGeocode"), [("location", location.text), ("distance", String(maxDistanceMetres)), ("outSR", "4326")])
            } catch ClientError.server(400, _, let details) where details.contains("Unable to find address for the specified location.") {
                return []
            }
            let attributes = (answer["address"]?.objectValue ?? [:]).compactMap { name, value in value.stringValue.map { (name, $0) } }
            let point = GeocodePoint(
                longitude: answer["location"]?["x"]?.doubleValue ?? .nan, latitude: answer["location"]?["y"]?.doubleValue ?? .nan)
            let fields = Dictionary(attributes, uniquingKeysWith: { first, _ in first })
            return [GeocodeResult(label: fields["Match_addr"] ?? "", score: 100, location: point, attributes: fields)]
        case .device(let file):
            guard let answer = try LocatorSearch(index: file).reverseGeocode(location.planar, metres: maxDistanceMetres) else { return [] }
            let (longitude, latitude) = WebMercator.coordinates(of: answer.found.location)
            let fields = Dictionary(answer.attributes(locatorName: file.name).map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
            return [
                GeocodeResult(
                    label: answer.found.matchAddress, score: 100, location: GeocodePoint(longitude: longitude, latitude: latitude), attributes: fields
                )
            ]
        }
    }

    private func candidates(
        _ connection: ServiceConnection, _ address: [(String, String)], _ parameters: GeocodeParameters
    ) async throws
        -> [GeocodeResult]
    {
        let answer = try await connection.getJSON(
            connection.url("findAddressCandidates"),
            address + [("outFields", "*"), ("maxLocations", String(parameters.maxResults))] + parameters.queryFields)
        return (answer["candidates"]?.arrayValue ?? []).map { candidate in
            let attributes = (candidate["attributes"]?.objectValue ?? [:]).compactMap { name, value in
                Self.serviceOnly.contains(name) ? nil : value.stringValue.map { (name, $0) }
            }
            return GeocodeResult(
                label: candidate["address"]?.stringValue ?? "", score: candidate["score"]?.doubleValue ?? 0,
                location: GeocodePoint(
                    longitude: candidate["location"]?["x"]?.doubleValue ?? .nan, latitude: candidate["location"]?["y"]?.doubleValue ?? .nan),
                attributes: Dictionary(attributes, uniquingKeysWith: { first, _ in first }))
        }
    }

    /// A candidate found on the device, as the service writes it.
    private func result(_ candidate: GeocodeCandidate, _ file: LocatorFile) -> GeocodeResult {
        let (longitude, latitude) = WebMercator.coordinates(of: candidate.location)
        var attributes = candidate.attributes.filter { !Self.serviceOnly.contains($0.key) }
        attributes["Loc_name"] = file.name
        return GeocodeResult(
            label: candidate.matchAddress, score: candidate.score, location: GeocodePoint(longitude: longitude, latitude: latitude),
            attributes: attributes)
    }
}
