import Foundation

/// The fault rules of a test target (stub: issue 47's fault helper fills it).
public final class FaultBoard: Sendable {
    public init(seed: UInt64?) {}
}
