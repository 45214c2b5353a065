import Foundation
import Subprocess

#if canImport(Glibc)
    import Glibc
#endif

/// The tests' child processes (python3, xz, sha256sum, rclone). Not Foundation's `Process`: on
/// Linux it copies a whole `dirent` name for every open descriptor before it spawns, which reads
/// past the end of the directory buffer and crashed a test run holding ~1,400 descriptors
/// (stores open in parallel tests). swift-subprocess closes them with `closefrom`.
public enum ExternalTool {
    /// How a tool ended and what it wrote.
    public struct Outcome: Sendable {
        /// The exit code; nil when a signal ended the tool.
        public var exitCode: Int32?
        /// Standard output, followed by standard error when it was merged.
        public var output: Data
        public var text: String { String(decoding: output, as: UTF8.self) }
    }

    /// Runs the tool at `path` to its end; standard error is merged into the output when
    /// `mergingErrors`, else discarded.
    public static func run(_ path: String, _ arguments: [String], mergingErrors: Bool = false) async throws -> Outcome {
        let limit = 1 << 30
        if mergingErrors {
            let result = try await Subprocess.run(
                .path(.init(path)), arguments: Arguments(arguments), output: .data(limit: limit), error: .combinedWithOutput)
            return Outcome(exitCode: exitCode(result.terminationStatus), output: result.standardOutput)
        }
        let result = try await Subprocess.run(.path(.init(path)), arguments: Arguments(arguments), output: .data(limit: limit), error: .discarded)
        return Outcome(exitCode: exitCode(result.terminationStatus), output: result.standardOutput)
    }

    private static func exitCode(_ status: TerminationStatus) -> Int32? {
        if case .exited(let code) = status { code } else { nil }
    }

    /// Starts the tool at `path` (its output discarded), runs `body` while it runs, then ends it
    /// with SIGTERM. `body` is told whether the tool has already exited by itself.
    public static func whileRunning<Result: Sendable>(
        _ path: String, _ arguments: [String], _ body: (_ hasExited: @Sendable () -> Bool) async throws -> Result
    ) async throws -> Result {
        let result = try await Subprocess.run(
            .path(.init(path)), arguments: Arguments(arguments), input: .none, output: .discarded, error: .discarded
        ) {
            execution in
            let pid = execution.processIdentifier.value
            defer { try? execution.send(signal: .terminate) }
            return try await body { hasExited(pid) }
        }
        return result.closureResult
    }

    /// Whether `pid`, a child of this process, has ended (looked at without reaping it: the
    /// subprocess library reaps it).
    private static func hasExited(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        guard waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return true }
        return info._sifields._sigchld.si_pid != 0
    }
}
