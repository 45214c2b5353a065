import GRDB
import OutpostStorage

/// The repositories reach one another through the shared database.
extension StoreRepository {
    var edits: SpatiaLiteEdits { SpatiaLiteEdits(database: database) }
    var replicas: SpatiaLiteReplicaRegistry { SpatiaLiteReplicaRegistry(database: database) }
    var uploads: SpatiaLiteUploadStore { SpatiaLiteUploadStore(database: database) }
    var temporaryDirectory: String { database.temporaryDirectory }
    func reloadCatalog() throws { try database.reloadCatalog() }
}
