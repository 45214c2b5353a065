import OutpostWire
import Testing

/// JSON numbers past a double's range read as infinities (`1e999`), and integral doubles past
/// Int64 (`1e300`) are no integers: each is refused where an integer is wanted, never
/// converted with a trap (FuzzGeometry's `regression-wkid-infinity`: a geometry's
/// `"spatialReference": -805e+348` stopped the process).
@Suite struct OverflowingNumberTests {
    static let numbers: [String] = ["1e999", "-805e+348", "1e300", "-1e300", "9.3e18", "4326.5"]

    @Test(arguments: numbers)
    func aSpatialReferenceOfNoIntegerIsNone(_ number: String) throws {
        let value = try JSONParser.parse(number)
        #expect(SpatialReference(json: value) == nil)
        #expect(SpatialReference(json: try JSONParser.parse(#"{"wkid": \#(number)}"#)) == nil)
    }

    @Test(arguments: numbers)
    func aDateOfNoIntegerIsRefused(_ number: String) throws {
        let field = FieldDefinition(name: "seen", type: .date)
        #expect(throws: EditError.self) { try FieldValue.coerce(try JSONParser.parse(number), for: field) }
    }

    @Test func aRealOfNoFiniteValueIsRefusedEvenLeniently() {
        let field = FieldDefinition(name: "height", type: .double)
        for text in ["inf", "-infinity", "nan", "1e999"] {
            #expect(throws: EditError.self) { try FieldValue.coerce(.string(text), for: field, mode: .lenient) }
        }
        #expect((try? FieldValue.coerce(.string("12.5"), for: field, mode: .lenient)) == .real(12.5))
    }
}
