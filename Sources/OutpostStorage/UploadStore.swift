import OutpostWire

/// The `uploads` resource (§8): items of one service, whole or in parts, each a file once
/// committed.
///
/// Contract: item ids are `i` + a GUID (`isValidUploadID`), refused otherwise before they
/// reach a path; an item belongs to one service and is not found through another; parts are
/// kept until commit, which joins them in the order asked (or part-number order).
public protocol UploadStore: Sendable {
    /// Stores a whole file (moved into place) as a committed item (`uploads/upload`).
    func createUpload(service: String, name: String, description: String, sourcePath: String, size: Int, owner: String) throws -> UploadItem
    /// An item to upload in parts (`uploads/register`).
    func registerUpload(service: String, name: String, description: String, owner: String) throws -> UploadItem
    func upload(service: String, itemID: String) throws -> UploadItem
    func addUploadPart(service: String, itemID: String, partId: Int, sourcePath: String) throws -> UploadItem
    func uploadParts(service: String, itemID: String) throws -> [String]
    func commitUpload(service: String, itemID: String, parts: [String]?) throws -> UploadItem
    func deleteUpload(service: String, itemID: String) throws
    /// A private copy of a committed item's bytes (for an attachment to take).
    func copyOfUpload(service: String, itemID: String) throws -> (path: String, size: Int, name: String)
    /// A file with a committed item's bytes: the item's own in a data folder, a cached copy
    /// of an object store's.
    func uploadDataFile(_ itemID: String) throws -> String
}

/// Item ids are `i` + a GUID; anything else is refused before it reaches a path.
public func isValidUploadID(_ id: String) -> Bool {
    id.count == 37 && id.hasPrefix("i") && GlobalID.normalize(String(id.dropFirst())) != nil
}
