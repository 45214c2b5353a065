import Foundation

extension ParentJob {
    /// Runs every child not yet done, all at once (as the SDKs do: the server works on them
    /// side by side and the downloads overlap), until each is done, failed or paused.
    /// `make` builds a child from its record (restoring a saved one); `describe` names it in
    /// the job's messages. Without `continueOnErrors` the first failure cancels the others
    /// (the machine's rule: this only makes, starts and follows them).
    func runChildren(
        make: (Int, ChildJobRecord) throws -> any ChildJob, describe: (ChildJobRecord) -> String
    ) async -> ChildrenOutcome {
        let pending = state.withLock { state in state.machine.pendingChildren.map { ($0, state.machine.document.children[$0]) } }
        var made: [(index: Int, child: any ChildJob)] = []
        var descriptions: [Int: String] = [:]
        for (index, record) in pending {
            do {
                made.append((index, try make(index, record)))
                descriptions[index] = describe(record)
            } catch {
                return report(.childrenNotMade(error as? ClientError ?? .invalidResponse("\(error)"))) ?? .stopped
            }
        }
        state.withLock { state in
            for (index, child) in made { state.children[index] = child }
        }
        if let outcome = report(.childrenMade(descriptions)) { return outcome }
        return await withTaskGroup(of: ChildrenOutcome?.self) { group in
            for (index, child) in made { group.addTask { await self.follow(child, at: index) } }
            var outcome: ChildrenOutcome?
            for await settled in group where settled != nil { outcome = settled }
            // Every child reports its end or pause, so the last one settles them all.
            return outcome ?? .stopped
        }
    }

    /// Follows a child to its end (done or failed) or its pause (its state saved for the
    /// resume), telling the machine how far it has come meanwhile; the children's outcome
    /// when it was the last to settle.
    private func follow(_ child: any ChildJob, at index: Int) async -> ChildrenOutcome? {
        while child.status == .started || child.status == .notStarted {
            report(.childProgressed(index, fraction: child.fraction))
            try? await Task.sleep(for: .milliseconds(20))
        }
        if child.status == .paused { return report(.childPaused(index, saved: try? child.toJSON())) }
        do {
            return report(.childSucceeded(index, try await child.waitForEnd()))
        } catch {
            return report(.childFailed(index, error as? ClientError ?? .invalidResponse("\(error)")))
        }
    }
}
