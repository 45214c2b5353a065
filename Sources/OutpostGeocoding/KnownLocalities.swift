/// The localities an index holds, as canonical token sequences: how a single line without
/// commas is split into a street and a locality (`SingleLineAddress.parse`).
public struct KnownLocalities: Hashable, Sendable, Codable {
    public private(set) var names: Set<[String]>
    /// The most tokens any name has: the longest suffix worth trying.
    public private(set) var longest: Int

    public init(_ names: some Sequence<String>) {
        self.names = []
        self.longest = 0
        for name in names { insert(AddressNormalizer.tokens(name)) }
    }

    /// Names already as canonical token sequences (what an index stores): no text is folded
    /// again, so a service can load them as they were saved.
    public init(tokens: some Sequence<[String]>) {
        self.init([String]())
        for name in tokens { insert(name) }
    }

    /// The localities of an index's entries (every entry that names one).
    public init(entries: [LocatorEntry]) {
        self.init([String]())
        for entry in entries where !entry.locality.isEmpty { insert(entry.locality) }
    }

    public static let none = KnownLocalities([String]())

    public func contains(_ tokens: [String]) -> Bool { names.contains(tokens) }

    private mutating func insert(_ tokens: [String]) {
        guard !tokens.isEmpty else { return }
        names.insert(tokens)
        longest = max(longest, tokens.count)
    }
}
