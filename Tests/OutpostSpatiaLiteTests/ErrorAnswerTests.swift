import GRDB
import OutpostStorage
import OutpostWire
import Testing

@testable import OutpostSpatiaLite

/// Every error a request or a job meets answers as one ArcGIS error, the same in both
/// (`ArcGISError(answering:)`), with the code its kind gives.
@Suite struct ErrorAnswerTests {
    struct UnknownFault: Error {}

    @Test func everyErrorAnswersWithTheCodeOfItsKind() {
        let cases: [(any Error, Int)] = [
            (StoreError.serviceNotFound("Nope"), 404), (StoreError.serviceExists("Demo"), 409),
            (VersionFailure.notFound("v1"), 404), (VersionFailure.isDefault, 400),
            (UserFailure.weakPassword, 400), (UserFailure.notFound("ada"), 404),
            (ArcGISError.tooManyRequests("busy", retryAfterSeconds: 5), 429), (UnknownFault(), 500),
            (DatabaseError(resultCode: .SQLITE_CORRUPT, message: "malformed", sql: "SELECT secret FROM f_demo_0"), 500),
        ]
        for (error, code) in cases {
            let answer = ArcGISError(answering: error)
            #expect(answer.code == code && answer.kind.code == code, "\(error)")
            #expect(ArcGISError.Kind(code: code) == answer.kind || [400, 500].contains(code), "\(error)")
        }
    }

    @Test func serverFaultsNameNothingOfTheServersInternals() {
        let database = ArcGISError(answering: DatabaseError(resultCode: .SQLITE_CORRUPT, message: "malformed", sql: "SELECT secret FROM f_demo_0"))
        #expect(!database.description.contains("SELECT") && !database.description.contains("f_demo_0") && database.description.contains("11"))
        #expect(ArcGISError(answering: UnknownFault()).details == ["An unexpected error occurred; the server log has its details."])
    }
}
