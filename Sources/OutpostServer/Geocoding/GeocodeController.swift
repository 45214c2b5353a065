import Hummingbird
import OutpostService
import OutpostStorage
import OutpostWire

/// Locators as `GeocodeServer`s (docs/geocoding.md, "Service"): every operation reads, so
/// every viewer may ask (as any service is every user's to read).
struct GeocodeController<Backend: OutpostBackend>: Sendable {
    let store: Backend
    let batches = BusyGate(busyMessage: "2 batches are being geocoded; try again shortly.")

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
    }

    private func answer(
        _ c: OutpostRequestContext, _ body: (StoredLocator, RequestParameters) throws -> JSONValue
    ) throws -> Response {
        let locator = try answers.locator(named: try c.serviceName())
        return RESTResponse.json(try body(locator, c.form.parameters), parameters: c.form.parameters)
    }
}
