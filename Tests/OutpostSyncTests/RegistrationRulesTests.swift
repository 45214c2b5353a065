import OutpostSync
import OutpostWire
import Testing

/// ArcGIS's three registration rules, each a row of docs/sync-semantics.md.
@Suite struct RegistrationRulesTests {
    let copyOf = RegistrationFacts(serviceIsVersioned: false, referenceId: "{B}", originId: "{A}", unregistered: [])

    @Test func aCopyOfARegisteredLineRegisters() throws {
        try RegistrationRules.check(copyOf)
        try RegistrationRules.check(RegistrationFacts(serviceIsVersioned: false, referenceId: "{A}", originId: "{A}", unregistered: []))
    }

    @Test func anUnregisteredGeodatabaseNeverRegistersAgain() {
        var facts = copyOf
        facts.unregistered = ["{B}"]
        #expect(throws: ArcGISError.self) { try RegistrationRules.check(facts) }
    }

    @Test func onceTheOriginalIsUnregisteredNoCopyRegisters() {
        var facts = copyOf
        facts.unregistered = ["{A}"]
        do {
            try RegistrationRules.check(facts)
            Issue.record("registered")
        } catch {
            #expect(error.details.first?.contains("original geodatabase '{A}'") == true)
        }
    }

    @Test func registeringIsNotSupportedOnAVersionedService() {
        var facts = copyOf
        facts.serviceIsVersioned = true
        do {
            try RegistrationRules.check(facts)
            Issue.record("registered")
        } catch {
            #expect(error.kind == .unsupported && error.details.first?.contains("versioned") == true)
        }
    }
}
