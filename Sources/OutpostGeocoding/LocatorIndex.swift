/// Where one locator's entries are gathered from: a store's text and spatial indexes on the
/// server, a locator file on a device (docs/geocoding.md, "Offline"). An index only gathers
/// entries worth asking about; `LocatorSearch` decides, the same way for both.
public protocol LocatorIndex {
    /// The localities the entries name, as canonical tokens: how a query's locality is found.
    var knownLocalities: KnownLocalities { get }
    /// At most `limit` entries for the terms, best first, by `SearchTerms`' recipe: the
    /// whole-query pass, the AND pass, then (when they found fewer) the loose and the trigram
    /// passes.
    func gatherEntries(terms: SearchTerms, limit: Int) throws -> [LocatorEntry]
    /// At most `limit` entries whose extent meets the box, nearest the box's centre first.
    func entries(in box: LocatorBox, limit: Int) throws -> [LocatorEntry]
    /// The entry a `magicKey` names, if the index holds it.
    func entry(kind: LocatorEntry.Kind, id: String) throws -> LocatorEntry?
}
