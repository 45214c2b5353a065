import Foundation
import Logging
import OutpostStorage
import ServiceLifecycle
import Synchronization

/// The server task of an `OutpostTestServer` and what it needs from its store, type-erased.
final class RunningServer: Sendable {
    private let group: ServiceGroup
    private let task: Task<Void, any Error>
    let addUser: @Sendable (String, UserRole, String) throws -> Void
    private let closeStore: @Sendable () -> Void
    private let stopped = Mutex(false)

    init(
        group: ServiceGroup, task: Task<Void, any Error>, addUser: @escaping @Sendable (String, UserRole, String) throws -> Void,
        closeStore: @escaping @Sendable () -> Void
    ) {
        self.group = group
        self.task = task
        self.addUser = addUser
        self.closeStore = closeStore
    }

    /// Graceful shutdown, then the store closed; once.
    func stop() async {
        guard
            stopped.withLock({ was in
                defer { was = true }
                return !was
            })
        else { return }
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        closeStore()
    }
}
