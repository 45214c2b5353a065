struct WhereToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case word(String)
        case quotedIdentifier(String)
        case string(String)
        case integer(Int64)
        case real(Double)
        case symbol(String)
        case end

        var display: String {
            switch self {
            case .word(let w): "'\(w)'"
            case .quotedIdentifier(let w): "\"\(w)\""
            case .string(let s): "string '\(s)'"
            case .integer(let i): "number \(i)"
            case .real(let d): "number \(d)"
            case .symbol(let s): "'\(s)'"
            case .end: "end of where clause"
            }
        }
    }

    var kind: Kind
    var position: Int
}

enum WhereLexer {
    static func tokenize(_ text: String) throws(WhereParser.Error) -> [WhereToken] {
        let bytes = Array(text.utf8)
        var tokens: [WhereToken] = []
        var i = 0
        func isWordStart(_ b: UInt8) -> Bool {
            (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x5F || b >= 0x80
        }
        func isWordPart(_ b: UInt8) -> Bool { isWordStart(b) || (b >= 0x30 && b <= 0x39) || b == UInt8(ascii: ".") }
        while i < bytes.count {
            let b = bytes[i]
            let start = i
            switch b {
            case 0x20, 0x09, 0x0A, 0x0D:
                i += 1
            case UInt8(ascii: "'"):
                // SQL string: '' is an escaped quote.
                var value: [UInt8] = []
                i += 1
                var closed = false
                while i < bytes.count {
                    if bytes[i] == UInt8(ascii: "'") {
                        if i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "'") {
                            value.append(UInt8(ascii: "'"))
                            i += 2
                            continue
                        }
                        i += 1
                        closed = true
                        break
                    }
                    value.append(bytes[i])
                    i += 1
                }
                guard closed else { throw WhereParser.Error(message: "unterminated string", position: start) }
                tokens.append(WhereToken(kind: .string(String(decoding: value, as: UTF8.self)), position: start))
            case UInt8(ascii: "\""):
                var value: [UInt8] = []
                i += 1
                var closed = false
                while i < bytes.count {
                    if bytes[i] == UInt8(ascii: "\"") {
                        i += 1
                        closed = true
                        break
                    }
                    value.append(bytes[i])
                    i += 1
                }
                guard closed, !value.isEmpty else {
                    throw WhereParser.Error(message: "unterminated quoted identifier", position: start)
                }
                tokens.append(WhereToken(kind: .quotedIdentifier(String(decoding: value, as: UTF8.self)), position: start))
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."):
                var isReal = false
                while i < bytes.count {
                    let c = bytes[i]
                    if c >= 0x30 && c <= 0x39 {
                        i += 1
                    } else if c == UInt8(ascii: ".") {
                        isReal = true
                        i += 1
                    } else if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                        isReal = true
                        i += 1
                        if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
                    } else {
                        break
                    }
                }
                let text = String(decoding: bytes[start..<i], as: UTF8.self)
                if !isReal, let value = Int64(text) {
                    tokens.append(WhereToken(kind: .integer(value), position: start))
                } else if let value = Double(text) {
                    tokens.append(WhereToken(kind: .real(value), position: start))
                } else {
                    throw WhereParser.Error(message: "invalid number '\(text)'", position: start)
                }
                if i < bytes.count, isWordStart(bytes[i]) {
                    throw WhereParser.Error(message: "invalid number", position: start)
                }
            case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "!"), UInt8(ascii: "|"):
                let next: UInt8? = i + 1 < bytes.count ? bytes[i + 1] : nil
                let pair = next.map { String(decoding: [b, $0], as: UTF8.self) }
                if let pair, ["<=", ">=", "<>", "!=", "||"].contains(pair) {
                    tokens.append(WhereToken(kind: .symbol(pair), position: start))
                    i += 2
                } else if b == UInt8(ascii: "<") || b == UInt8(ascii: ">") {
                    tokens.append(WhereToken(kind: .symbol(String(decoding: [b], as: UTF8.self)), position: start))
                    i += 1
                } else {
                    throw WhereParser.Error(message: "unexpected character '\(Character(Unicode.Scalar(b)))'", position: start)
                }
            case UInt8(ascii: "="), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: ","), UInt8(ascii: "+"),
                UInt8(ascii: "-"), UInt8(ascii: "*"), UInt8(ascii: "/"), UInt8(ascii: "%"):
                if b == UInt8(ascii: "-"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "-") {
                    throw WhereParser.Error(message: "SQL comments are not allowed", position: start)
                }
                if b == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "*") {
                    throw WhereParser.Error(message: "SQL comments are not allowed", position: start)
                }
                tokens.append(WhereToken(kind: .symbol(String(decoding: [b], as: UTF8.self)), position: start))
                i += 1
            default:
                guard isWordStart(b) else {
                    if b == UInt8(ascii: ";") {
                        throw WhereParser.Error(message: "';' is not allowed in a where clause", position: start)
                    }
                    throw WhereParser.Error(message: "unexpected character '\(Character(Unicode.Scalar(b)))'", position: start)
                }
                while i < bytes.count, isWordPart(bytes[i]) { i += 1 }
                tokens.append(WhereToken(kind: .word(String(decoding: bytes[start..<i], as: UTF8.self)), position: start))
            }
        }
        tokens.append(WhereToken(kind: .end, position: bytes.count))
        return tokens
    }
}
