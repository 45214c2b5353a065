import OutpostWire

/// An item of the `uploads` resource (§8).
public struct UploadItem: Sendable, Equatable {
    public var itemID: String
    public var itemName: String
    public var description: String
    public var date: Int64
    public var committed: Bool
    public var size: Int64
    /// The user who made it (`""`: made without one, the administrators'): only they and
    /// administrators see, change or use it (docs/reliability.md, "Authorization table").
    public var owner: String

    public init(itemID: String, itemName: String, description: String, date: Int64, committed: Bool, size: Int64, owner: String = "") {
        self.owner = owner
        self.itemID = itemID
        self.itemName = itemName
        self.description = description
        self.date = date
        self.committed = committed
        self.size = size
    }

}
