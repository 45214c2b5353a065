import Foundation
import Hummingbird
import OutpostService
import OutpostStorage
import OutpostWire

/// Locators as `GeocodeServer`s (docs/geocoding.md, "Service"): every operation reads, so
/// every viewer may ask (as any service is every user's to read).
struct GeocodeController<Backend: OutpostBackend>: Sendable {
    let store: Backend
    /// Batches and exports: each reads up to the whole index, two at a time per process.
    let batches = BusyGate(busyMessage: "2 batches or locator exports are running; try again shortly.")
    /// Locator files on their way to clients: each holds an unlinked scratch copy until its
    /// download ends, so at most four at once per process.
    let downloads = BusyGate(limit: 4, busyMessage: "4 locator files are being downloaded; try again shortly.")

    var answers: LocatorAnswers<Backend.Locators> { LocatorAnswers(store: store.locators) }

    func addRoutes(to routes: ArcGISRoutes) {
        routes.viewers
            .read(
                "GeocodeServer",
                store: { _, c in try answer(c) { locator, _ in LocatorInfo.json(locator, currentVersion: FeatureServiceMetadata.currentVersion) } }
            )
            .read("GeocodeServer/findAddressCandidates", store: { _, c in try answer(c, answers.findAddressCandidates) })
            .read("GeocodeServer/suggest", store: { _, c in try answer(c, answers.suggest) })
            .read("GeocodeServer/reverseGeocode", store: { _, c in try answer(c, answers.reverseGeocode) })
            .read("GeocodeServer/geocodeAddresses") { _, c in try await StoreCall.runHeavy(batches) { try answer(c, answers.geocodeAddresses) } }
            .read("GeocodeServer/exportLocator") { request, c in
                let locator = try await StoreCall.run { try answers.locator(named: try c.serviceName()) }
                if let unchanged = ConditionalGet.notModified(request, eTag: Self.eTag(of: locator)) { return unchanged }
                let permit = try downloads.enter()
                return try await StoreCall.runHeavy(batches) { try exportLocator(c, permit) }
            }
    }

    private func answer(
        _ c: OutpostRequestContext, _ body: (StoredLocator, RequestParameters) throws -> JSONValue
    ) throws -> Response {
        let locator = try answers.locator(named: try c.serviceName())
        return RESTResponse.json(try body(locator, c.form.parameters), parameters: c.form.parameters)
    }

    /// A locator file's entity tag: its build's time, the change-tracking generation its
    /// entries follow and their count, so a refresh's new entries are a new tag.
    static func eTag(of locator: StoredLocator) -> String {
        "\"\(locator.builtAt)-\(locator.generation ?? 0)-\(locator.entryCount)\""
    }

    /// The locator as a locator file (docs/geocoding.md, "Offline"), for the client library's
    /// `LocatorTask` to answer on a device. The file is written to a scratch path in the
    /// store's temporary folder (swept at start, should the process die mid-write), opened,
    /// and unlinked before it is sent, so nothing is left behind however the download ends.
    /// The download's permit is given back when the body ends, or when the response is
    /// dropped unsent.
    private func exportLocator(_ c: OutpostRequestContext, _ permit: BusyGate.Permit) throws -> Response {
        try FileManager.default.createDirectory(atPath: store.temporaryDirectory, withIntermediateDirectories: true)
        let path = (store.temporaryDirectory as NSString).appendingPathComponent("outpost-locator-\(UUID().uuidString).locator")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let locator = try answers.writeFile(named: try c.serviceName(), to: path)
        let size = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ArcGISError.internalError("The locator file could not be read.") }
        // A locator's name is letters, digits, _ and - (`ServiceDefinition.isValidName`), in one folder at most.
        let file = locator.name.split(separator: "/").last.map(String.init) ?? "locator"
        let headers: HTTPFields = [
            .contentType: "application/vnd.sqlite3", .contentDisposition: "attachment; filename=\"\(file).locator\"",
            .eTag: Self.eTag(of: locator),
        ]
        let body = ResponseBody(contentLength: size) { writer in
            defer {
                try? handle.close()
                permit.release()
            }
            var left = size
            while left > 0, let data = try handle.read(upToCount: min(left, 1 << 16)), !data.isEmpty {
                left -= data.count
                try await writer.write(ByteBuffer(bytes: data))
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }
}
