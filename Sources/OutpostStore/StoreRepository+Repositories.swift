import GRDB
import OutpostStorage

/// The repositories reach one another through the shared database.
extension StoreRepository {
    var schema: SpatiaLiteSchema { SpatiaLiteSchema(database: database) }
    var features: SpatiaLiteFeatures { SpatiaLiteFeatures(database: database) }
    var edits: SpatiaLiteEdits { SpatiaLiteEdits(database: database) }
    var sync: SpatiaLiteSync { SpatiaLiteSync(database: database) }
    var versions: SpatiaLiteVersions { SpatiaLiteVersions(database: database) }
    var replicas: SpatiaLiteReplicaRegistry { SpatiaLiteReplicaRegistry(database: database) }
    var uploads: SpatiaLiteUploadStore { SpatiaLiteUploadStore(database: database) }
    var temporaryDirectory: String { database.temporaryDirectory }
    var attachmentsDirectory: String { database.attachmentsDirectory }
    func reloadCatalog() throws { try database.reloadCatalog() }
}
