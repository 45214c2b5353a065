extension LocatorEntry {
    /// The most tokens a street, locality or place name may have: a query reads no more words.
    public static let maximumComponentTokens = QueryBounds.maximumTokens

    /// The entry of one source feature: its kind says which fields it needs (a point address: a
    /// house number and a street, or a full address that has both; a centre-line: a street and
    /// its polyline; a place: its name; a locality; a postcode). Components absent from the
    /// fields but present in `fullAddress` are taken from it. A centre-line's location is the
    /// point halfway along it.
    public static func make(
        id: String, kind: Kind, fields: LocatorSourceFields, location: PlanarPoint? = nil, polyline: [[Double]] = [],
        knownLocalities: KnownLocalities = .none
    ) throws(LocatorEntryRefusal) -> LocatorEntry {
        guard !id.isEmpty, id.utf8.count <= MagicKey.maximumIdLength else { throw .unusableId }
        guard fields.ranges?.isWithinBounds ?? true else { throw .houseNumberRangeOutOfBounds }
        let full = fields.fullAddress.map { SingleLineAddress.parse($0, knownLocalities: knownLocalities) } ?? ParsedAddress()
        let street = text(fields.street)
        let locality = text(fields.locality)
        let postcode = text(fields.postcode)
        var entry = LocatorEntry(id: id, kind: kind, location: location ?? PlanarPoint(x: .nan, y: .nan))
        entry.street = street.map { AddressNormalizer.tokens($0) } ?? full.street
        entry.locality = locality.map { AddressNormalizer.tokens($0) } ?? full.locality
        entry.postcode = postcode.flatMap { Postcode.canonical($0) } ?? full.postcode
        entry.display = Display(
            street: street.map { AddressNormalizer.displayForm($0) } ?? titled(full.street),
            locality: locality ?? titled(full.locality), postcode: postcode?.uppercased() ?? full.postcode.map(Postcode.displayForm) ?? "")
        if let number = text(fields.houseNumber) {
            guard let parsed = HouseNumber(number) else { throw .unreadableHouseNumber(number) }
            entry.houseNumber = parsed
        } else {
            entry.houseNumber = full.houseNumber
        }
        if let place = text(fields.placeName) {
            entry.placeName = AddressNormalizer.tokens(place)
            entry.display.placeName = place
        }
        try entry.checkBounds()
        // `words` cuts each word to 40 characters; a postcode that long was not a postcode.
        if let postcode, AddressNormalizer.fold(postcode).count(where: { $0 != " " }) > AddressNormalizer.maximumTokenLength {
            throw .componentTooLong(field: "postcode")
        }
        try entry.complete(polyline: polyline, ranges: fields.ranges)
        return entry
    }

    /// Refuses a component past the bounds a query has too (`LocatorEntryRefusal.componentTooLong`).
    private func checkBounds() throws(LocatorEntryRefusal) {
        for (field, tokens) in [("street", street), ("locality", locality), ("placeName", placeName)]
        where tokens.count > Self.maximumComponentTokens {
            throw .componentTooLong(field: field)
        }
        if let postcode, postcode.count > AddressNormalizer.maximumTokenLength { throw .componentTooLong(field: "postcode") }
    }

    /// Checks what the kind needs and fills the centre-line's parts.
    private mutating func complete(polyline: [[Double]], ranges: HouseNumberRanges?) throws(LocatorEntryRefusal) {
        switch kind {
        case .pointAddress:
            guard houseNumber != nil else { throw .missing(field: "houseNumber") }
            guard !street.isEmpty else { throw .missing(field: "street") }
        case .streetCenterline:
            guard !street.isEmpty else { throw .missing(field: "street") }
            guard let line = Polyline(polyline), line.length > 0 else { throw .noGeometry }
            self.polyline = polyline
            self.ranges = ranges.flatMap { $0.isEmpty ? nil : $0 }
            location = CenterlineInterpolation.point(along: line, at: 0.5)
            houseNumber = nil
            return
        case .place:
            guard !placeName.isEmpty else { throw .missing(field: "placeName") }
        case .locality:
            guard !locality.isEmpty else { throw .missing(field: "locality") }
        case .postal:
            guard postcode != nil else { throw .missing(field: "postcode") }
        }
        guard location.x.isFinite, location.y.isFinite else { throw .noGeometry }
    }

    /// A field's text trimmed, or nil when blank.
    private static func text(_ value: String?) -> String? {
        guard let value, !AddressNormalizer.words(value).isEmpty else { return nil }
        return value.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// Display text rebuilt from tokens, when the data gave only a full address.
    private static func titled(_ tokens: [String]) -> String {
        tokens.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined(separator: " ")
    }
}
