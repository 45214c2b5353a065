/// What a query may cost: of any text, at most `maximumUTF8Bytes` bytes (cut on a Unicode
/// scalar boundary, before any folding) and then `maximumCharacters` characters are read, and
/// at most `maximumTokens` words in all; the rest is ignored, not refused. The byte cut comes
/// first because one character (a letter with thousands of combining marks) can be any size.
public enum QueryBounds {
    public static let maximumUTF8Bytes = 1_024
    public static let maximumCharacters = 200
    public static let maximumTokens = 20

    /// The text cut to the bounds; reads no more of it than it keeps.
    static func bounded(_ text: String) -> String {
        var bytes = 0
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            bytes += UTF8.width(scalar)
            guard bytes <= maximumUTF8Bytes else { break }
            scalars.append(scalar)
        }
        return String(String(scalars).prefix(maximumCharacters))
    }

}
