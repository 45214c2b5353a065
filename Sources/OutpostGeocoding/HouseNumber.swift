import Foundation

/// A house number as addresses write it: a number and an optional letter suffix ("12B").
/// A range ("12-14", "12/14") is its first number: the address is where the range starts.
public struct HouseNumber: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The numbers a query can write (1–6 digits), and so the ends a range may have.
    public static let bounds = 0...999_999

    public var number: Int
    /// Lower case, empty when there is none.
    public var suffix: String

    public init(number: Int, suffix: String = "") {
        self.number = number
        self.suffix = suffix.lowercased()
    }

    /// "12B": the number, then its suffix in capitals.
    public var description: String { "\(number)\(suffix.uppercased())" }

    /// The token an index holds for the number: "12b".
    public var token: String { "\(number)\(suffix)" }

    /// A house number that is the whole text ("12", "12b", "12-14"), or nil.
    public init?(_ text: some StringProtocol) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let (number, rest) = Self.leading(in: trimmed[...]), rest.allSatisfy(\.isWhitespace) else { return nil }
        self = number
    }

    /// The house number a text starts with and the text after it, or nil. The number is 1–6
    /// ASCII digits, then at most one letter, then optionally `-` or `/` and a second number
    /// (ignored); it must end at a space, a comma or the end of the text.
    static func leading(in text: Substring) -> (HouseNumber, Substring)? {
        var rest = text.drop(while: \.isWhitespace)
        let digits = rest.prefix(while: \.isASCIIDigit)
        guard (1...6).contains(digits.count), let number = Int(digits) else { return nil }
        rest = rest.dropFirst(digits.count)
        var suffix = ""
        if let letter = rest.first, letter.isASCIILetter, !(rest.dropFirst().first?.isLetter ?? false) {
            suffix = String(letter)
            rest = rest.dropFirst()
        }
        if let separator = rest.first, separator == "-" || separator == "/", rest.dropFirst().first?.isASCIIDigit == true {
            rest = rest.dropFirst().drop(while: \.isASCIIDigit)
            if let letter = rest.first, letter.isASCIILetter { rest = rest.dropFirst() }
        }
        guard rest.first.map({ $0 == "," || $0.isWhitespace }) ?? true else { return nil }
        return (HouseNumber(number: number, suffix: suffix), rest)
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
    var isASCIILetter: Bool { isASCII && isLetter }
}
