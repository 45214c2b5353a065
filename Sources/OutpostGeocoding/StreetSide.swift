/// Which side of a centre-line, looking along the direction it was drawn in.
public enum StreetSide: String, Hashable, Sendable, Codable {
    case left, right
}
