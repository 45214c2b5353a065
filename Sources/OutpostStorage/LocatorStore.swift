import Foundation
import OutpostGeocoding

/// Where a locator's entries come from: one layer of a feature service, one kind of entry,
/// and which of the layer's fields hold each component (docs/geocoding.md, "Locators").
public struct LocatorDefinition: Hashable, Sendable, Codable {
    /// The component fields: each the name of a field of the layer, or nil.
    public struct Fields: Hashable, Sendable, Codable {
        public var houseNumber: String?
        public var street: String?
        public var locality: String?
        public var postcode: String?
        public var fullAddress: String?
        public var placeName: String?
        /// A centre-line's house number ranges: from and to on the left, then on the right.
        public var fromLeft: String?
        public var toLeft: String?
        public var fromRight: String?
        public var toRight: String?

        public init(
            houseNumber: String? = nil, street: String? = nil, locality: String? = nil, postcode: String? = nil, fullAddress: String? = nil,
            placeName: String? = nil, fromLeft: String? = nil, toLeft: String? = nil, fromRight: String? = nil, toRight: String? = nil
        ) {
            self.houseNumber = houseNumber
            self.street = street
            self.locality = locality
            self.postcode = postcode
            self.fullAddress = fullAddress
            self.placeName = placeName
            self.fromLeft = fromLeft
            self.toLeft = toLeft
            self.fromRight = fromRight
            self.toRight = toRight
        }

        /// Every field named, as (component, field).
        public var named: [(component: String, field: String)] {
            let all: [(String, String?)] = [
                ("houseNumber", houseNumber), ("street", street), ("locality", locality), ("postcode", postcode), ("fullAddress", fullAddress),
                ("placeName", placeName), ("fromLeft", fromLeft), ("toLeft", toLeft), ("fromRight", fromRight), ("toRight", toRight),
            ]
            return all.compactMap { component, field in field.map { (component, $0) } }
        }
    }

    /// The locator's name, as a service's: its URL is `rest/services/<name>/GeocodeServer`.
    public var name: String
    public var service: String
    public var layer: Int
    public var kind: LocatorEntry.Kind
    public var fields: Fields

    public init(name: String, service: String, layer: Int, kind: LocatorEntry.Kind, fields: Fields) {
        self.name = name
        self.service = service
        self.layer = layer
        self.kind = kind
        self.fields = fields
    }
}

/// A built locator: its definition and what the build found.
public struct StoredLocator: Hashable, Sendable, Codable {
    public var definition: LocatorDefinition
    public var entryCount: Int
    /// Features that made no entry, by reason (`LocatorEntryRefusal`), for an administrator.
    public var refused: [String: Int]
    /// The localities its entries name, as canonical tokens: how a query's locality is found.
    public var knownLocalities: [[String]]
    /// When it was built, in milliseconds since 1970.
    public var builtAt: Int64
    /// The store's change-tracking generation its entries follow: every change of the layer up
    /// to it is in them (`LocatorRefresh`). Nil for a locator built before it was recorded.
    public var generation: Int64?

    public init(
        definition: LocatorDefinition, entryCount: Int, refused: [String: Int], knownLocalities: [[String]], builtAt: Int64,
        generation: Int64? = nil
    ) {
        self.definition = definition
        self.entryCount = entryCount
        self.refused = refused
        self.knownLocalities = knownLocalities
        self.builtAt = builtAt
        self.generation = generation
    }

    public var name: String { definition.name }
}

/// The locators' index (docs/geocoding.md, "Locators"): entries kept with their tokens in the
/// backend's text index (SQLite FTS5 / PostgreSQL full text and `pg_trgm`). The store only
/// gathers entries worth asking about; `OutpostGeocoding` decides.
///
/// Names are compared without regard to case, as service names are in URLs.
public protocol LocatorStore: Sendable {
    func locators() throws -> [StoredLocator]
    func locator(named name: String) throws -> StoredLocator?
    /// Keeps the locator and its entries in place of any it had, in one transaction: a
    /// request sees the old entries or the new ones, never a mix.
    func saveLocator(_ locator: StoredLocator, entries: [LocatorEntry]) throws
    /// Brings the locator's entries in step with its layer, in one transaction: the entries of
    /// `deleting` ids and of every upserted id go, the upserted entries come in, and the
    /// locator's row becomes `locator` with its `entryCount` counted. Returns that count; nil,
    /// writing nothing, when the stored locator is no longer `previous` (a build or another
    /// refresh came first). `StoreError.serviceNotFound` when there is no such locator.
    func updateLocator(
        _ locator: StoredLocator, upserting entries: [LocatorEntry], deleting ids: [String], replacing previous: StoredLocator
    )
        throws -> Int?
    /// Removes the locator and its entries; `StoreError.serviceNotFound` when there is none.
    func deleteLocator(named name: String) throws
    /// At most `limit` entries for the terms, best first, by `SearchTerms`' recipe: the
    /// whole-query pass, the AND pass, then (when they found fewer) the loose and the trigram passes. None when every
    /// pass's expression is nil.
    func gatherEntries(locator name: String, terms: SearchTerms, limit: Int) throws -> [LocatorEntry]
    /// At most `limit` entries whose extent (a point's point, a centre-line's vertices') meets
    /// the box, nearest the box's centre first: reverse geocoding's prefilter.
    func entries(locator name: String, in box: LocatorBox, limit: Int) throws -> [LocatorEntry]
    /// The entry a `magicKey` names, if the locator holds it.
    func entry(locator name: String, kind: LocatorEntry.Kind, id: String) throws -> LocatorEntry?
    /// Every entry's row, in a stable order, `body` called once each: what a locator file is
    /// written from (`GeocodeServer/exportLocator`). `StoreError.serviceNotFound` without it.
    func forEachEntryRow(locator name: String, _ body: (LocatorEntryRow) throws -> Void) throws
}

extension StoredLocator {
    /// Whether `stored` is still this locator as it was read: the same definition, build and generation.
    public func isUnchanged(in stored: StoredLocator) -> Bool {
        stored.definition == definition && stored.builtAt == builtAt && stored.generation == generation
    }

    public var json: String { (try? String(decoding: JSONEncoder().encode(self), as: UTF8.self)) ?? "{}" }

    public static func decode(_ json: String) throws -> StoredLocator {
        try JSONDecoder().decode(StoredLocator.self, from: Data(json.utf8))
    }
}

/// One stored locator as a `LocatorIndex`: what a `GeocodeServer`'s `LocatorSearch` asks.
public struct StoreLocatorIndex<Store: LocatorStore>: LocatorIndex {
    public let store: Store
    public let locator: StoredLocator
    public let knownLocalities: KnownLocalities

    public init(store: Store, locator: StoredLocator) {
        self.store = store
        self.locator = locator
        knownLocalities = KnownLocalities(tokens: locator.knownLocalities)
    }

    public func gatherEntries(terms: SearchTerms, limit: Int) throws -> [LocatorEntry] {
        try store.gatherEntries(locator: locator.name, terms: terms, limit: limit)
    }

    public func entries(in box: LocatorBox, limit: Int) throws -> [LocatorEntry] {
        try store.entries(locator: locator.name, in: box, limit: limit)
    }

    public func entry(kind: LocatorEntry.Kind, id: String) throws -> LocatorEntry? {
        try store.entry(locator: locator.name, kind: kind, id: id)
    }
}
