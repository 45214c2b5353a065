import Foundation

/// Every request a test target answered (stub: issue 47's journal helper fills it).
public final class RequestJournal: Sendable {
    public static let defaultCapacity = 10_000
    public init(capacity: Int) {}
}
