import OutpostDataTools
import OutpostSpatiaLite
import OutpostStorage
import OutpostTestSupport
import Testing

/// A backend seeded with the demo, for suites that run each case on SpatiaLite and PostgreSQL.
struct DemoBackend: Sendable, CustomTestStringConvertible {
    var name: String
    var make: @Sendable () throws -> any OutpostBackend

    var testDescription: String { name }

    static let all: [DemoBackend] = [
        DemoBackend(name: "SpatiaLite") { try makeDemoStore(label: "demo-backend") },
        DemoBackend(name: "PostgreSQL") {
            let backend = try TestPostgres.makeBackend()
            try DemoData.seed(backend, testdataDirectory: TestFolders.testdata)
            return backend
        },
    ]
}
