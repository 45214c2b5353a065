import Foundation

extension ParentJob {
    /// Runs every child not yet done, all at once (as the SDKs do: the server works on them
    /// side by side and the downloads overlap), until each is done, failed or paused.
    /// `make` builds a child from its record (restoring a saved one); `describe` names it in
    /// the job's messages. Without `continueOnErrors` the first failure cancels the others.
    func runChildren(
        make: (Int, ChildJobRecord) throws -> any ChildJob, describe: (ChildJobRecord) -> String
    ) async -> ChildrenOutcome {
        let pending = state.withLock { state in
            state.document.children.indices.filter { [.pending, .running].contains(state.document.children[$0].state) }
        }
        var started: [(Int, any ChildJob)] = []
        for index in pending {
            do { started.append((index, try make(index, document.children[index]))) } catch {
                return .failed(error as? ClientError ?? .invalidResponse("\(error)"))
            }
        }
        let go = state.withLock { state -> Bool in
            guard !state.cancelRequested, !state.pauseRequested else { return false }
            for (index, child) in started {
                state.document.children[index].state = .running
                state.running[index] = child
            }
            return true
        }
        guard go else { return .stopped }
        let pollInterval = state.withLock { $0.pollInterval }
        for (index, child) in started {
            child.pollInterval = pollInterval
            child.start()
            note(describe(document.children[index]))
        }
        let fatal = await withTaskGroup(of: ClientError?.self) { group -> ClientError? in
            for (index, child) in started { group.addTask { await self.follow(child, at: index) } }
            var first: ClientError?
            for await failure in group where failure != nil && first == nil {
                first = failure
                for child in state.withLock({ Array($0.running.values) }) { child.cancel() }
            }
            return first
        }
        state.withLock { $0.running = [:] }
        if isCancelled { return .failed(.cancelled) }
        if let fatal { return .failed(fatal) }
        return document.children.contains { $0.state == .running } ? .stopped : .finished
    }

    /// Waits for a child: its end (done, or failed — returned unless `continueOnErrors`) or
    /// its pause (its state saved for the resume).
    private func follow(_ child: any ChildJob, at index: Int) async -> ClientError? {
        while child.status == .started || child.status == .notStarted {
            updateProgress(index, child.fraction)
            try? await Task.sleep(for: .milliseconds(20))
        }
        if child.status == .paused {
            let saved = try? child.toJSON()
            update { $0.children[index].saved = saved }
            return nil
        }
        do {
            let output = try await child.waitForEnd()
            update {
                $0.children[index].state = .done
                $0.children[index].saved = nil
                $0.children[index].output = output
            }
            updateProgress(index, 1)
            return nil
        } catch {
            let reason = error as? ClientError ?? .invalidResponse("\(error)")
            if isCancelled { return nil }
            update {
                $0.children[index].state = .failed
                $0.children[index].error = reason
            }
            note("\(document.children[index].file) failed: \(reason.description)")
            updateProgress(index, 1)
            return document.continueOnErrors ? nil : reason
        }
    }

    /// Progress: 1,000 units per child, as far as each has come.
    private func updateProgress(_ index: Int, _ fraction: Double) {
        let total = state.withLock { state -> Int64 in
            state.fractions[index] = fraction
            return state.document.children.indices.reduce(Int64(0)) { sum, child in
                let done = [.done, .failed].contains(state.document.children[child].state)
                return sum + Int64((done ? 1 : state.fractions[child] ?? 0) * 1000)
            }
        }
        progress.completedUnitCount = total
    }
}
