import Foundation

/// Finds backend calls made on an async thread (issue 45). Handlers, middleware and background
/// services run on the cooperative pool, a few threads every request shares: a blocking
/// database call there stalls them all. The server's one way to the backend is
/// `StoreCall.run { … }` (a route's `store:` handler runs its body so).
///
/// A mechanical reading of the source, not a compiler. Comments and literal text are blanked
/// (interpolations kept); each `{` opens a scope classified by what precedes it:
/// - `func …(…) async` and closures that are async (a route's handler, `Task`, `runEvery`, a
///   closure that awaits or says `async`) are **async**;
/// - `StoreCall.run {`, `StoreCall.runHeavy(gate) {`, `StoreCall.runHeavyWhenFree(gate, …) {` and a route's `store: {` are the **blocking** pool's;
/// - other functions are **sync**; type bodies too; anything else (control flow, plain
///   closures) is its parent's.
/// A *backend reference* is a member of `store`, `backend`, `users`, `jobs` or `files` (the
/// names the server gives the backend, its repositories and its result files), or
/// `catalog(…)`. A synchronous function making one, or calling one that does, is a *store
/// helper*, across all files: called as `name(…)` in its own type, `Type.name(…)`, or
/// `value.name(…)` where the value is named like the type (`authenticator.admission(…)`). A
/// finding is a backend reference, or a call of a store helper, in an async scope.
struct BlockingCallScanner {
    static let backendNames: Set<String> = ["store", "backend", "users", "jobs", "files"]
    /// Members of the backend that are values, not calls into storage.
    static let plainMembers: Set<String> = ["clock", "directory", "temporaryDirectory"]
    /// Calls whose trailing closure runs async: route registration, tasks, background loops.
    static let asyncCallees: Set<String> = [
        "read", "change", "stateChanging", "get", "post", "on", "beforeServerStarts", "submit", "runEvery", "addTask", "Task", "detached",
    ]

    struct Finding: CustomStringConvertible, Equatable {
        var file: String
        var line: Int
        var text: String
        var description: String { "\(file):\(line): \(text)" }
    }

    enum Mode { case sync, async, blocking }

    struct Token {
        var text: String
        var line: Int
    }

    /// A function by the type declaring it (nil: a global one) and its name.
    struct Function: Hashable {
        var type: String?
        var name: String
    }

    /// What a token is inside: the mode of its scope, the type around it, and the synchronous
    /// function whose own body it is in (nil inside closures of a decided mode, type bodies).
    struct Place {
        var mode: Mode
        var type: String?
        var owner: Function?
    }

    /// One file, read.
    struct File {
        var name: String
        var lines: [Substring]
        var tokens: [Token]
        var places: [Place]
        var declared: [Function]
    }

    /// The findings in `files` (name and text), except in `exempt` names.
    static func findings(in files: [(name: String, text: String)], exempt: Set<String> = []) -> [Finding] {
        let read = files.map { File(name: $0.name, text: $0.text) }
        var declaring: [String: Set<String?>] = [:]
        for function in read.flatMap(\.declared) { declaring[function.name, default: []].insert(function.type) }
        // Store helpers, to a fixed point: a helper's callers are helpers.
        var helpers: Set<Function> = []
        while true {
            var found = helpers
            for file in read {
                for index in file.tokens.indices where file.places[index].mode == .sync {
                    guard let owner = file.places[index].owner, owner.name != "init",
                        file.isBackendUse(at: index, helpers: helpers, declaring: declaring)
                    else { continue }
                    found.insert(owner)
                }
            }
            if found == helpers { break }
            helpers = found
        }
        var findings: [Finding] = []
        for file in read where !exempt.contains(file.name) {
            var reported: Set<Int> = []
            for index in file.tokens.indices
            where file.places[index].mode == .async && file.isBackendUse(at: index, helpers: helpers, declaring: declaring) {
                let line = file.tokens[index].line
                if reported.insert(line).inserted {
                    findings.append(Finding(file: file.name, line: line + 1, text: file.lines[line].trimmingCharacters(in: .whitespaces)))
                }
            }
        }
        return findings
    }

    /// The source with comments and the text of literals blanked (offsets and lines kept),
    /// interpolations left as code.
    static func code(_ text: String) -> [UInt8] {
        var bytes = Array(text.utf8)
        enum Context {
            case code(parens: Int)
            case string(multiline: Bool, hashes: Int)
        }
        var stack: [Context] = [.code(parens: 0)]
        var i = 0
        func blank(_ range: Range<Int>) {
            for j in range where j < bytes.count && bytes[j] != UInt8(ascii: "\n") { bytes[j] = UInt8(ascii: " ") }
        }
        func at(_ j: Int, _ literal: String) -> Bool {
            let pattern = Array(literal.utf8)
            return j + pattern.count <= bytes.count && Array(bytes[j..<j + pattern.count]) == pattern
        }
        while i < bytes.count {
            switch stack.last! {
            case .code(let parens):
                if at(i, "//") {
                    let end = bytes[i...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
                    blank(i..<end)
                    i = end
                } else if at(i, "/*") {
                    var depth = 0
                    var j = i
                    repeat {
                        if at(j, "/*") {
                            depth += 1
                            j += 2
                        } else if at(j, "*/") {
                            depth -= 1
                            j += 2
                        } else {
                            j += 1
                        }
                    } while depth > 0 && j < bytes.count
                    blank(i..<j)
                    i = j
                } else if bytes[i] == UInt8(ascii: "#") || bytes[i] == UInt8(ascii: "\"") {
                    var j = i
                    while j < bytes.count, bytes[j] == UInt8(ascii: "#") { j += 1 }
                    guard j < bytes.count, bytes[j] == UInt8(ascii: "\"") else {
                        i = j
                        continue
                    }
                    let multiline = at(j, "\"\"\"")
                    let end = j + (multiline ? 3 : 1)
                    blank(i..<end)
                    stack.append(.string(multiline: multiline, hashes: j - i))
                    i = end
                } else if bytes[i] == UInt8(ascii: "("), stack.count > 1 {
                    stack[stack.count - 1] = .code(parens: parens + 1)
                    i += 1
                } else if bytes[i] == UInt8(ascii: ")"), stack.count > 1 {
                    if parens == 0 {
                        blank(i..<i + 1)
                        stack.removeLast()
                    } else {
                        stack[stack.count - 1] = .code(parens: parens - 1)
                    }
                    i += 1
                } else {
                    i += 1
                }
            case .string(let multiline, let hashes):
                let hashMarks = String(repeating: "#", count: hashes)
                if at(i, "\\" + hashMarks + "(") {
                    blank(i..<i + hashes + 2)
                    stack.append(.code(parens: 0))
                    i += hashes + 2
                } else if at(i, "\\" + hashMarks) {
                    blank(i..<i + hashes + 2)
                    i += hashes + 2
                } else if at(i, (multiline ? "\"\"\"" : "\"") + hashMarks) {
                    let end = i + (multiline ? 3 : 1) + hashes
                    blank(i..<end)
                    stack.removeLast()
                    i = end
                } else {
                    blank(i..<i + 1)
                    i += 1
                }
            }
        }
        return bytes
    }

    /// Identifiers (with `$0`, `#if` and backticked names) and single punctuation characters.
    static func tokens(_ code: [UInt8]) -> [Token] {
        func isWordByte(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || byte == UInt8(ascii: "#") || byte >= 0x80
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
        }
        var tokens: [Token] = []
        var line = 0
        var i = 0
        while i < code.count {
            let byte = code[i]
            if byte == UInt8(ascii: "\n") {
                line += 1
                i += 1
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "`") {
                i += 1
            } else if isWordByte(byte) {
                var j = i
                while j < code.count, isWordByte(code[j]) { j += 1 }
                tokens.append(Token(text: String(decoding: code[i..<j], as: UTF8.self), line: line))
                i = j
            } else {
                tokens.append(Token(text: String(UnicodeScalar(byte)), line: line))
                i += 1
            }
        }
        return tokens
    }
}

extension BlockingCallScanner.File {
    typealias Place = BlockingCallScanner.Place
    typealias Function = BlockingCallScanner.Function

    static let typeKeywords: Set = ["struct", "class", "enum", "extension", "protocol", "actor"]
    /// Words before `.` that make it an implicit member (`case .file(…)`), not a receiver.
    static let keywords: Set = ["case", "return", "try", "await", "in", "else", "throw", "is", "as", "where", "let", "var", "if", "guard"]

    init(name: String, text: String) {
        self.name = name
        lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        tokens = BlockingCallScanner.tokens(BlockingCallScanner.code(text))
        var closes: [Int: Int] = [:]
        var open: [Int] = []
        for (index, token) in tokens.enumerated() {
            if token.text == "{" { open.append(index) }
            if token.text == "}", let start = open.popLast() { closes[start] = index }
        }
        places = []
        declared = []
        var stack = [Place(mode: .sync, type: nil, owner: nil)]
        var headerStart = 0
        for (index, token) in tokens.enumerated() {
            places.append(stack.last!)
            switch token.text {
            case "{":
                let scope = scope(opening: index, header: headerStart..<index, close: closes[index] ?? tokens.count, parent: stack.last!)
                if let function = scope.declared { declared.append(function) }
                stack.append(scope.place)
                headerStart = index + 1
            case "}":
                if stack.count > 1 { stack.removeLast() }
                headerStart = index + 1
            case ";":
                headerStart = index + 1
            default:
                break
            }
        }
    }

    /// The scope the `{` at `index` opens, from the tokens since the last brace or `;`.
    private func scope(opening index: Int, header: Range<Int>, close: Int, parent: Place) -> (place: Place, declared: Function?) {
        let words = header.map { tokens[$0].text }
        func notMember(_ k: Int) -> Bool { k == 0 || words[k - 1] != "." }
        if let function = words.indices.last(where: { (words[$0] == "func" || words[$0] == "init") && notMember($0) }),
            words[function...].contains("(")
        {
            // The effects after the parameter list: `async` there makes the function async.
            var depth = 0
            var end = words.count
            for k in function..<words.count {
                if words[k] == "(" { depth += 1 }
                if words[k] == ")" {
                    depth -= 1
                    if depth == 0 {
                        end = k
                        break
                    }
                }
            }
            guard end < words.count else { return (parent, nil) }  // a default argument's closure
            let effects = words[(end + 1)...].prefix { $0 != "-" && $0 != "where" }
            let name = Function(type: parent.type, name: words[function] == "init" ? "init" : words[min(function + 1, words.count - 1)])
            let isAsync = effects.contains("async")
            return (Place(mode: isAsync ? .async : .sync, type: parent.type, owner: isAsync ? nil : name), name)
        }
        if let keyword = words.indices.first(where: { Self.typeKeywords.contains(words[$0]) && notMember($0) }) {
            return (Place(mode: .sync, type: words.indices.contains(keyword + 1) ? words[keyword + 1] : nil, owner: nil), nil)
        }
        if words.suffix(2).elementsEqual([".", "run"]) && words.dropLast(2).last == "StoreCall"
            || words.suffix(3).elementsEqual([".", "run", "("]) && words.dropLast(3).last == "StoreCall"
            || words.suffix(2).elementsEqual(["store", ":"])
            // `StoreCall.runHeavy(gate) {`: a heavy read's own threads, blocking too.
            || (words.count >= 6
                && Array(words.suffix(6)).enumerated().allSatisfy {
                    $0.offset == 4 || $0.element == ["StoreCall", ".", "runHeavy", "(", "", ")"][$0.offset]
                })
            // `StoreCall.runHeavyWhenFree(gate, patience: p) {`: the same threads, once the gate has a place.
            || (words.last == ")"
                && words.lastIndex(of: "runHeavyWhenFree").map { $0 >= 2 && words[$0 - 1] == "." && words[$0 - 2] == "StoreCall" } == true)
        {
            return (Place(mode: .blocking, type: parent.type, owner: nil), nil)
        }
        let async = Place(mode: .async, type: parent.type, owner: nil)
        if let callee = Self.callee(before: words), BlockingCallScanner.asyncCallees.contains(callee) { return (async, nil) }
        let body = tokens[(index + 1)..<close].map(\.text)
        let signature = body.prefix { !["in", "{", "}", "for"].contains($0) }.prefix(40)
        if body.contains("await") || (signature.count < body.count && body[signature.count] == "in" && signature.contains("async")) {
            return (async, nil)
        }
        if words.suffix(2).elementsEqual(["get", "async"]) { return (async, nil) }
        return (parent, nil)
    }

    /// The function a trailing closure is passed to: `name {` or `name(…) {`.
    private static func callee(before words: [String]) -> String? {
        var end = words.count - 1
        guard end >= 0 else { return nil }
        if words[end] == ")" {
            var depth = 0
            while end >= 0 {
                if words[end] == ")" { depth += 1 }
                if words[end] == "(" {
                    depth -= 1
                    if depth == 0 { break }
                }
                end -= 1
            }
            end -= 1
        }
        return end >= 0 ? words[end] : nil
    }

    /// Whether the token at `index` starts a backend reference or a call of a store helper:
    /// `name(…)` and `self.name(…)` of the type around it (or a global function),
    /// `Type.name(…)`, and `value.name(…)` of a type named like the value (`authenticator`:
    /// `Authenticator`, `files`: `ResultFiles`).
    func isBackendUse(at index: Int, helpers: Set<Function>, declaring: [String: Set<String?>]) -> Bool {
        let word = tokens[index].text
        func text(_ k: Int) -> String? { tokens.indices.contains(k) ? tokens[k].text : nil }
        let previous = text(index - 1)
        let receiver = previous == "." ? text(index - 2) : nil
        if BlockingCallScanner.backendNames.contains(word), previous != "." || receiver == "self" {
            let dot = text(index + 1) == "?" ? index + 2 : index + 1
            guard text(dot) == ".", let member = text(dot + 1) else { return false }
            return !BlockingCallScanner.plainMembers.contains(member)
        }
        if word == "catalog", text(index + 1) == "(" { return true }
        guard text(index + 1) == "(", previous != "func", let types = declaring[word] else { return false }
        let here = places[index].type
        guard let receiver else {
            return helpers.contains(Function(type: here, name: word)) || helpers.contains(Function(type: nil, name: word))
        }
        if receiver == "self" || receiver == "Self" { return helpers.contains(Function(type: here, name: word)) }
        guard let first = receiver.unicodeScalars.first, CharacterSet.letters.contains(first), !Self.keywords.contains(receiver) else {
            return false  // `.name(…)`, an implicit member; or a call on a call's result.
        }
        if CharacterSet.uppercaseLetters.contains(first) { return helpers.contains(Function(type: receiver, name: word)) }
        let value = receiver.lowercased()
        return types.contains { type in
            guard let type, helpers.contains(Function(type: type, name: word)) else { return false }
            return type.lowercased().hasPrefix(value) || type.lowercased().hasSuffix(value)
        }
    }
}
