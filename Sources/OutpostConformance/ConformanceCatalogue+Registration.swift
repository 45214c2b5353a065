import Foundation
import OutpostClient
import OutpostWire

/// The seed's registration rules (Runtime `registerSyncEnabledGeodatabase`), as scenarios.
extension ConformanceCatalogue {
    static let registrationScenarios: [ConformanceScenario] = [
        ConformanceScenario(
            id: "register.not-after-unregister", title: "An unregistered geodatabase cannot register again",
            checks: "§4.7: once a geodatabase is unregistered it cannot be registered again"
        ) { c in
            try requireRegistration(c)
            let replica = try await c.createReplica("gone", box: c.testBox)
            _ = try await c.connection.postForm(c.connection.url("unRegisterReplica"), [("replicaID", replica.id)])
            try await expectRefused(c, reference: replica, "registering the unregistered replica's own data succeeded")
        },
        ConformanceScenario(
            id: "register.not-after-original-unregistered", title: "No copy registers once its original is unregistered",
            checks: "§4.7: if the original geodatabase is unregistered, no copy of it can register"
        ) { c in
            try requireRegistration(c)
            let original = try await c.createReplica("original", box: c.testBox)
            let copy = try await register(c, reference: original)
            _ = try await c.connection.postForm(c.connection.url("unRegisterReplica"), [("replicaID", original.id)])
            try await expectRefused(c, reference: original, "a copy of the unregistered original registered")
            try await expectRefused(c, reference: copy, "a copy of a copy of the unregistered original registered")
        },
        ConformanceScenario(
            id: "register.not-on-versioned", title: "Registering is refused on a versioned service",
            checks: "§4.7: registering a geodatabase is not supported with a versioned feature service"
        ) { c in
            guard c.layer["isDataVersioned"]?.boolValue == true else { throw Unsupported(reason: "the service is not versioned") }
            try expect(!c.info.supportsRegisteringExistingData, "a versioned service advertises supportsRegisteringExistingData")
            let replica = try await c.createReplica("versioned", box: c.testBox)
            try await expectRefused(c, reference: replica, "a registration on a versioned service succeeded")
        },
    ]

    private static func requireRegistration(_ c: ConformanceContext) throws {
        guard c.info.supportsRegisteringExistingData else { throw Unsupported(reason: "supportsRegisteringExistingData is false") }
    }

    /// Registers existing data copied from `reference` (createReplica with `replicaOptions`).
    private static func register(_ c: ConformanceContext, reference: ScenarioReplica) async throws -> ScenarioReplica {
        var options: JSONObject = ["registerExistingData": true, "refReplicaId": .string(reference.id)]
        if c.syncModel == .perReplica {
            options["replicaServerGen"] = .int(reference.generation)
        } else {
            options["layerServerGens"] = [["id": .int(Int64(c.layerId)), "serverGen": .int(reference.generation)]]
        }
        let answer = try await c.connection.postForm(
            c.connection.url("createReplica"),
            [
                ("replicaName", "conformance-copy-\(UUID().uuidString.prefix(8))"), ("layers", String(c.layerId)),
                ("syncModel", c.syncModel.rawValue), ("replicaOptions", JSONValue.object(options).jsonText),
                ("transportType", TransportType.embedded.rawValue),
            ])
        return try c.replica(from: answer)
    }

    private static func expectRefused(_ c: ConformanceContext, reference: ScenarioReplica, _ message: String) async throws {
        do {
            _ = try await register(c, reference: reference)
        } catch is ClientError {
            return
        }
        throw Failed(message)
    }
}
