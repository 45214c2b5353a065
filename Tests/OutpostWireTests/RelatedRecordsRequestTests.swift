import Testing

@testable import OutpostWire

/// `queryRelatedRecords` requests: parsing, and the related table's `where` (its key values bound
/// as literals when compiled: `RelatedRecordsWhereTests`).
@Suite struct RelatedRecordsRequestTests {
    @Test func parsesAsArcGISNamesItsParameters() throws {
        let request = try RelatedRecordsRequest.parse(
            RequestParameters([
                ("objectIds", "3,1,3"), ("relationshipId", "2"), ("outFields", "finding,date"), ("returnGeometry", "false"),
                ("definitionExpression", "finding IS NOT NULL"), ("f", "pjson"),
            ]))
        #expect(request.objectIds == [3, 1], "a repeated feature is asked for once")
        #expect(request.relationshipId == 2 && request.outFields == ["finding", "date"] && !request.returnGeometry)
        #expect(request.definitionExpression == "finding IS NOT NULL" && request.format == .pjson)
    }

    @Test func objectIdsAndTheRelationshipAreRequired() {
        #expect(throws: ArcGISError.invalidParameter("objectIds", "the features whose related records are wanted")) {
            try RelatedRecordsRequest.parse(RequestParameters([("relationshipId", "0")]))
        }
        #expect(throws: ArcGISError.invalidParameter("relationshipId", "expected an integer")) {
            try RelatedRecordsRequest.parse(RequestParameters([("objectIds", "1"), ("relationshipId", "x")]))
        }
    }

    @Test func noKeysMatchNothing() {
        #expect(RelatedRecordsRequest.relatedWhere(keyField: "k", keys: [.null], definitionExpression: nil) == "1 = 0")
    }

    @Test func keysCompareWithoutCaseOrBraces() {
        #expect(
            RelatedRecordsRequest.keyIdentity(.string("0000000a-0000-4000-8000-000000000002"))
                == RelatedRecordsRequest.keyIdentity(.string("{0000000A-0000-4000-8000-000000000002}")))
        #expect(RelatedRecordsRequest.keyIdentity(.double(7)) == RelatedRecordsRequest.keyIdentity(.int(7)))
        #expect(RelatedRecordsRequest.keyIdentity(.null) == nil)
    }
}
