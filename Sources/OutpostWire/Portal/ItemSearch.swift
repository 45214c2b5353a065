/// A portal search query (`search?q=`), parsed: the ArcGIS search syntax's terms and phrases,
/// `field:` prefixes, `AND`/`OR`/`NOT` (and `-`), parentheses, ranges `[a TO b]` and a
/// trailing `*`. Terms side by side must all match (an implied `AND`). Matching is by words,
/// ignoring case; a phrase matches where its words appear in a row (docs/portal.md).
public indirect enum ItemSearch: Sendable, Equatable {
    case all
    case term(field: String?, words: [String], prefix: Bool)
    case range(field: String, low: Int64, high: Int64)
    case and(ItemSearch, ItemSearch)
    case or(ItemSearch, ItemSearch)
    case not(ItemSearch)

    /// Why a query could not be parsed.
    public struct SyntaxError: Error, Equatable, ArcGISErrorConvertible {
        public var reason: String
        public var arcGISError: ArcGISError {
            ArcGISError(kind: .invalidParameter, message: "Invalid query.", details: ["q: \(reason)"])
        }
    }

    /// Fields a term without a field is looked for in.
    public static let defaultFields = ["title", "tags", "snippet", "description", "type", "typekeywords"]
    /// Fields a query may name; any other is an error, not an empty answer.
    public static let knownFields: Set<String> = [
        "id", "owner", "title", "type", "typekeywords", "tags", "snippet", "description", "name", "url", "access", "created", "modified",
        "accountid", "orgid",
    ]

    /// The longest query taken, in bytes: what a person or a client's id list writes, with room.
    public static let maximumLength = 16_384
    /// The most terms, operators and parentheses a query may hold.
    public static let maximumTokens = 1_024
    /// How deep parentheses and `NOT`/`-` may nest: the parser and `matches` recurse once a
    /// level, so this bounds their stack whatever the query (docs/reliability.md).
    public static let maximumDepth = 32

    public static func parse(_ text: String) throws(SyntaxError) -> ItemSearch {
        guard text.utf8.count <= maximumLength else { throw SyntaxError(reason: "longer than \(maximumLength) bytes") }
        var parser = ItemSearchParser(tokens: try ItemSearchLexer.tokens(text))
        guard !parser.atEnd else { return .all }
        let query = try parser.orExpression()
        guard parser.atEnd else { throw SyntaxError(reason: "unexpected '\(parser.peek.map(String.init(describing:)) ?? "")'") }
        return query
    }

    /// Whether `item` matches; `organization` is the portal's id (`accountid:`/`orgid:`).
    public func matches(_ item: PortalItem, organization: String) -> Bool {
        switch self {
        case .all: return true
        case .and(let a, let b): return a.matches(item, organization: organization) && b.matches(item, organization: organization)
        case .or(let a, let b): return a.matches(item, organization: organization) || b.matches(item, organization: organization)
        case .not(let a): return !a.matches(item, organization: organization)
        case .range(let field, let low, let high):
            let value = field == "created" ? item.created : item.modified
            return low <= value && value <= high
        case .term(let field, let words, let prefix):
            guard let field else {
                return Self.defaultFields.contains { Self.term(field: $0, words: words, prefix: prefix, item: item, organization: organization) }
            }
            return Self.term(field: field, words: words, prefix: prefix, item: item, organization: organization)
        }
    }

    private static func term(field: String, words: [String], prefix: Bool, item: PortalItem, organization: String) -> Bool {
        let phrase = words.joined(separator: " ")
        func exact(_ value: String?) -> Bool { value.map { $0.lowercased() == phrase } ?? false }
        func text(_ value: String?) -> Bool { value.map { contains(ItemSearchLexer.words($0), words, prefix: prefix) } ?? false }
        switch field {
        case "id": return exact(item.id)
        case "owner": return exact(item.owner) || (prefix && item.owner.lowercased().hasPrefix(phrase))
        case "access": return exact(item.access.rawValue)
        case "accountid", "orgid": return phrase == organization.lowercased()
        case "title": return text(item.title)
        case "type": return text(item.type)
        case "snippet": return text(item.snippet)
        case "description": return text(item.itemDescription)
        case "name": return text(item.name)
        case "url": return exact(item.url) || text(item.url)
        case "tags": return item.tags.contains { exact($0) || text($0) }
        case "typekeywords": return item.typeKeywords.contains { exact($0) || text($0) }
        default: return false
        }
    }

    /// Whether `words` appear in a row in `haystack` (the last one as a prefix when asked).
    static func contains(_ haystack: [String], _ words: [String], prefix: Bool) -> Bool {
        guard !words.isEmpty else { return true }
        guard haystack.count >= words.count else { return false }
        for start in 0...(haystack.count - words.count) {
            let matched = words.indices.allSatisfy { index in
                let word = haystack[start + index]
                return prefix && index == words.count - 1 ? word.hasPrefix(words[index]) : word == words[index]
            }
            if matched { return true }
        }
        return false
    }
}

/// The tokens of a search query.
enum ItemSearchToken: Equatable, CustomStringConvertible {
    case open, close, and, or, not
    /// `field:` before a value, lowercased.
    case field(String)
    case value(text: String, quoted: Bool)
    case range(low: String, high: String)

    var description: String {
        switch self {
        case .open: "("
        case .close: ")"
        case .and: "AND"
        case .or: "OR"
        case .not: "NOT"
        case .field(let name): "\(name):"
        case .value(let text, _): text
        case .range(let low, let high): "[\(low) TO \(high)]"
        }
    }
}

enum ItemSearchLexer {
    /// Lowercased runs of letters and digits.
    static func words(_ text: String) -> [String] {
        text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init)
    }

    static func tokens(_ text: String) throws(ItemSearch.SyntaxError) -> [ItemSearchToken] {
        var tokens: [ItemSearchToken] = []
        var rest = Substring(text)
        while let first = rest.first {
            guard tokens.count < ItemSearch.maximumTokens else { throw .init(reason: "more than \(ItemSearch.maximumTokens) terms and operators") }
            if first.isWhitespace {
                rest = rest.dropFirst()
            } else if first == "(" || first == ")" {
                tokens.append(first == "(" ? .open : .close)
                rest = rest.dropFirst()
            } else if first == "\"" {
                guard let end = rest.dropFirst().firstIndex(of: "\"") else { throw .init(reason: "a quotation mark is not closed") }
                tokens.append(.value(text: String(rest[rest.index(after: rest.startIndex)..<end]), quoted: true))
                rest = rest[rest.index(after: end)...]
            } else if first == "[" || first == "{" {
                guard let end = rest.firstIndex(where: { $0 == "]" || $0 == "}" }) else { throw .init(reason: "a range is not closed") }
                let parts = rest[rest.index(after: rest.startIndex)..<end].split(separator: " ", omittingEmptySubsequences: true)
                guard parts.count == 3, parts[1] == "TO" else { throw .init(reason: "a range is written [low TO high]") }
                tokens.append(.range(low: String(parts[0]), high: String(parts[2])))
                rest = rest[rest.index(after: end)...]
            } else if first == "-" {
                tokens.append(.not)
                rest = rest.dropFirst()
            } else {
                let end = rest.firstIndex { $0.isWhitespace || $0 == "(" || $0 == ")" || $0 == "\"" || $0 == "[" } ?? rest.endIndex
                var word = rest[..<end]
                rest = rest[end...]
                if let colon = word.firstIndex(of: ":") {
                    tokens.append(.field(word[..<colon].lowercased()))
                    word = word[word.index(after: colon)...]
                    if word.isEmpty { continue }
                }
                switch word {
                case "AND", "&&": tokens.append(.and)
                case "OR", "||": tokens.append(.or)
                case "NOT": tokens.append(.not)
                default: tokens.append(.value(text: String(word), quoted: false))
                }
            }
        }
        return tokens
    }
}

/// Recursive descent over the tokens: OR binds loosest, then AND (or nothing), then NOT.
struct ItemSearchParser {
    var tokens: [ItemSearchToken]
    var position = 0
    /// Parentheses and negations open around the token being read.
    var depth = 0

    var atEnd: Bool { position >= tokens.count }
    var peek: ItemSearchToken? { atEnd ? nil : tokens[position] }

    mutating func orExpression() throws(ItemSearch.SyntaxError) -> ItemSearch {
        var left = try andExpression()
        while peek == .or {
            position += 1
            left = .or(left, try andExpression())
        }
        return left
    }

    mutating func andExpression() throws(ItemSearch.SyntaxError) -> ItemSearch {
        var left = try unary()
        while let next = peek, next != .or, next != .close {
            if next == .and { position += 1 }
            left = .and(left, try unary())
        }
        return left
    }

    mutating func unary() throws(ItemSearch.SyntaxError) -> ItemSearch {
        guard let token = peek else { throw .init(reason: "the query ends where a term was expected") }
        position += 1
        if token == .not || token == .open {
            guard depth < ItemSearch.maximumDepth else { throw .init(reason: "nested more than \(ItemSearch.maximumDepth) levels deep") }
            depth += 1
        }
        defer { if token == .not || token == .open { depth -= 1 } }
        switch token {
        case .not: return .not(try unary())
        case .open:
            let inner = try orExpression()
            guard peek == .close else { throw .init(reason: "a parenthesis is not closed") }
            position += 1
            return inner
        case .field(let name):
            guard ItemSearch.knownFields.contains(name) else { throw .init(reason: "unknown field '\(name)'") }
            guard let value = peek else { throw .init(reason: "'\(name):' has no value") }
            position += 1
            return try term(field: name, value)
        case .value: return try term(field: nil, token)
        case .close, .and, .or, .range: throw .init(reason: "unexpected '\(token)'")
        }
    }

    private func term(field: String?, _ token: ItemSearchToken) throws(ItemSearch.SyntaxError) -> ItemSearch {
        switch token {
        case .value(let text, let quoted):
            if text == "*" && !quoted { return .all }
            let prefix = !quoted && text.hasSuffix("*")
            let words =
                field == "id" || field == "owner" || field == "access" || field == "accountid" || field == "orgid"
                ? [text.lowercased().trimmingSuffix("*")] : ItemSearchLexer.words(text)
            return .term(field: field, words: words, prefix: prefix)
        case .range(let low, let high):
            guard let field, field == "created" || field == "modified", let low = Int64(low), let high = Int64(high) else {
                throw .init(reason: "ranges are for created and modified, in epoch milliseconds")
            }
            return .range(field: field, low: low, high: high)
        default: throw .init(reason: "'\(field ?? ""):' has no value")
        }
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String { hasSuffix(suffix) ? String(dropLast(suffix.count)) : self }
}
