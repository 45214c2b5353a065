import ArgumentParser
import Foundation
import Logging
import OutpostServer
import OutpostStorage

/// `serve`'s test-target options (docs/testing-your-app.md): the control API, reproducible
/// ids, seed data and the ready file. Each also from the environment and the config file.
struct TestTargetOptions: ParsableArguments {
    @Flag(
        name: .long, inversion: .prefixedNo,
        help: "Serve as a test target: the control API at /_outpost (faults, clock, journal, snapshots). Never on a server people use.")
    var testTarget: Bool?
    @Option(name: .long, help: "With --test-target: draw GlobalIDs, replica, item and job ids and fault probabilities from this seed.")
    var seed: UInt64?
    @Option(name: .long, help: "With --test-target: restore this folder (a snapshot saved by the control API) into the data at start.")
    var seedData: String?
    @Option(name: .long, help: "Write the server's URL to this file once it answers (with --port 0: the port it picked).")
    var readyFile: String?

    /// The settings from the first layer that has each.
    struct Resolved {
        var testTarget: Bool
        var seed: UInt64?
        var seedData, readyFile: String?
    }

    func resolve(_ layers: inout LayeredSettings) throws -> Resolved {
        let on = try layers.bool("test-target", testTarget, default: false)
        let seedText = try layers.optionalString("seed", seed.map(String.init))
        guard seedText.map({ UInt64($0) != nil }) ?? true else { throw ValidationError("seed must be a whole number, got '\(seedText ?? "")'.") }
        let resolved = Resolved(
            testTarget: on, seed: seedText.flatMap(UInt64.init), seedData: try layers.optionalString("seed-data", seedData),
            readyFile: try layers.optionalString("ready-file", readyFile))
        if !on && (resolved.seed != nil || resolved.seedData != nil) { throw ValidationError("seed and seed-data go with test-target.") }
        return resolved
    }

    /// The loud line a test target starts with: it must never be mistaken for a real server.
    static func warn(_ logger: Logger, at url: String, seed: UInt64?) {
        logger.warning(
            "TEST TARGET: the control API at \(url)/_outpost lets anyone it admits inject faults, move the clock, read every request and replace all data\(seed.map { "; ids drawn from seed \($0)" } ?? ""). Never serve people's data this way."
        )
    }

    /// Writes `url` to the ready file, whole or not at all (written beside it, then renamed).
    static func writeReadyFile(_ path: String, url: String) throws {
        let partial = path + ".partial"
        try Data((url + "\n").utf8).write(to: URL(fileURLWithPath: partial))
        guard rename(partial, path) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
    }
}
