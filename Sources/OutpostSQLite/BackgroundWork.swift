import Foundation
import Synchronization

/// A value computed on a thread of its own while the caller does other work (a bulk path
/// using the second core: an R-tree packed while SQLite builds an index). `wait` returns it.
public final class BackgroundWork<Value: Sendable>: Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let result = Mutex<Value?>(nil)

    public init(_ work: @escaping @Sendable () -> Value) {
        Thread { [self] in
            let value = work()
            result.withLock { $0 = value }
            done.signal()
        }.start()
    }

    /// The value, once the work is done (at most once).
    public func wait() -> Value {
        done.wait()
        return result.withLock { $0.take()! }
    }
}
