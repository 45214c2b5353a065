import Testing

@testable import OutpostWire

/// Domains as ArcGIS writes them, and the edits they admit (`docs/decisions.md`, "Field domains").
@Suite struct FieldDomainTests {
    static let species = try! JSONParser.parse(
        #"{"type":"codedValue","name":"TreeSpecies","codedValues":[{"name":"Oak","code":1},{"name":"Lime","code":2}]}"#)
    static let material = try! JSONParser.parse(
        #"{"type":"codedValue","name":"Material","codedValues":[{"name":"Aluminum","code":"AL"},{"name":"Copper","code":"CU"}]}"#)
    static let height = try! JSONParser.parse(#"{"type":"range","name":"Height","range":[0,80.5]}"#)

    @Test func domainsReadBackAsTheyWereWritten() {
        for json in [Self.species, Self.material, Self.height] {
            #expect(FieldDomain(json: json)?.json == json)
        }
        #expect(FieldDomain(json: .null) == nil)
        #expect(FieldDomain(json: #"{"type":"range","name":"Upside down","range":[5,1]}"#.parsed) == nil)
        #expect(FieldDomain(json: #"{"type":"inherited","name":"Subtype"}"#.parsed) == nil)
        #expect(FieldDomain(json: #"{"type":"codedValue","name":"Nested","codedValues":[{"name":"x","code":[1]}]}"#.parsed) == nil)
    }

    @Test(arguments: [
        (species, FieldDefinition(name: "species", type: .integer), JSONValue.int(2), true),
        (species, FieldDefinition(name: "species", type: .integer), .int(3), false),
        (species, FieldDefinition(name: "species", type: .integer), .null, true),
        (material, FieldDefinition(name: "material", type: .string), "CU", true),
        (material, FieldDefinition(name: "material", type: .string), "Copper", false),
        (material, FieldDefinition(name: "material", type: .string), "cu", false),
        (height, FieldDefinition(name: "height", type: .double), .double(80.5), true),
        (height, FieldDefinition(name: "height", type: .double), .int(0), true),
        (height, FieldDefinition(name: "height", type: .double), .double(80.6), false),
        (height, FieldDefinition(name: "height", type: .double), .double(-0.1), false),
    ])
    func editsAreCheckedAgainstTheDomainAndImportsAreNot(domain: JSONValue, field: FieldDefinition, value: JSONValue, admitted: Bool) {
        var field = field
        field.domain = domain
        let strict = Result { () throws(EditError) in try FieldValue.coerce(value, for: field) }
        if admitted {
            #expect((try? strict.get()) != nil)
        } else {
            guard case .failure(let error) = strict else {
                Issue.record("\(value) passed the domain")
                return
            }
            #expect(error.code == 1000)
            #expect(error.description.contains("'\(field.fieldDomain!.name)'") && error.description.contains(field.name))
            // An import keeps what the source holds.
            #expect((try? FieldValue.coerce(value, for: field, mode: .lenient)) != nil)
        }
    }
}

extension String {
    fileprivate var parsed: JSONValue { (try? JSONParser.parse(self)) ?? .null }
}
