/// Why a feature makes no entry: the builder skips it and counts the reason. Data past the
/// bounds is refused rather than cut: a cut entry would answer with text the layer does not
/// hold, and a refusal counted is something an administrator can find and fix.
public enum LocatorEntryRefusal: Error, Hashable, Sendable {
    /// A point kind without a point, or a centre-line without two finite vertices and a finite,
    /// non-zero length.
    case noGeometry
    /// The field the kind is found by is empty (a street, a place name, a locality, a postcode).
    case missing(field: String)
    /// A house number that is not a number ("rear", "12 1/2", seven digits, non-ASCII digits).
    case unreadableHouseNumber(String)
    /// A range end outside 0…999,999 (`HouseNumber.bounds`): no query can ask it.
    case houseNumberRangeOutOfBounds
    /// An empty id, or one over `MagicKey.maximumIdLength` UTF-8 bytes: its suggestions' keys
    /// would not read back.
    case unusableId
    /// A component of more than `LocatorEntry.maximumComponentTokens` tokens, or a postcode
    /// token over `AddressNormalizer.maximumTokenLength` characters: not an address, and
    /// unbounded work for every query that meets it.
    case componentTooLong(field: String)
}
