/// One of `suggest`'s answers: the text to show and the key that finds it again.
public struct Suggestion: Hashable, Sendable, Codable {
    public var text: String
    public var magicKey: String
    /// ArcGIS's flag for a category of places; an entry is never one.
    public var isCollection: Bool

    public init(text: String, magicKey: String, isCollection: Bool = false) {
        self.text = text
        self.magicKey = magicKey
        self.isCollection = isCollection
    }
}
