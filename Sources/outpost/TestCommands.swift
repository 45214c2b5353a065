import ArgumentParser
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `outpost test …`: drives a server started with `serve --test-target` from a shell or CI
/// (docs/testing-your-app.md).
struct TestTargetCommands: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test", abstract: "Drive a server started with --test-target.", subcommands: [Journal.self])

    /// `outpost test journal`: the requests the server answered, one line each, from the
    /// journal (`GET /_outpost/journal`); with `--follow`, new ones as they come (it polls
    /// with `since=`).
    struct Journal: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print (or follow) the requests a test target answered.")

        @Option(name: .long, help: "The server, e.g. http://127.0.0.1:8080.") var url: String
        @Flag(name: .long, help: "Keep printing new requests as they come (Ctrl-C to stop).") var follow = false
        @Option(name: .long, help: "Only this operation (query, applyEdits, synchronizeReplica, …).") var operation: String?
        @Option(name: .long, help: "Only this service (Name or Folder/Name).") var service: String?
        @Flag(name: .long, help: "One JSON object per line (the journal's entries) instead of text.") var json = false
        @Option(name: .long, help: "An admin's token, for servers with --require-auth (or OUTPOST_TOKEN).") var token: String?
        @Option(name: .long, help: "With --follow: seconds between polls.") var interval: Double = 0.5

        func run() async throws {
            var since: Int64 = 0
            while true {
                let page = try await fetch(since: since)
                for entry in page.entries {
                    let line =
                        json
                        ? String(
                            decoding: try JSONSerialization.data(withJSONObject: entry, options: [.sortedKeys, .withoutEscapingSlashes]),
                            as: UTF8.self)
                        : Self.line(entry)
                    // Unbuffered: a follower piped into another tool sees each request at once.
                    FileHandle.standardOutput.write(Data((line + "\n").utf8))
                }
                since = page.last
                guard follow else { return }
                try await Task.sleep(nanoseconds: UInt64(max(0.05, interval) * 1e9))
            }
        }

        /// One request: seq, time (UTC), method, operation, service, status, error code, milliseconds.
        static func line(_ entry: [String: Any]) -> String {
            let time = (entry["time"] as? NSNumber).map { Self.clockTime(milliseconds: $0.int64Value) } ?? "-"
            let service = (entry["service"] as? String).map { name in (entry["layer"] as? NSNumber).map { "\(name)/\($0)" } ?? name } ?? "-"
            let fields = [
                "\((entry["seq"] as? NSNumber)?.int64Value ?? 0)", time, entry["method"] as? String ?? "-", entry["operation"] as? String ?? "-",
                service,
                "\((entry["status"] as? NSNumber)?.intValue ?? 0)", (entry["errorCode"] as? NSNumber).map { "error \($0)" } ?? "-",
                String(format: "%.1fms", (entry["durationMs"] as? NSNumber)?.doubleValue ?? 0),
            ]
            return fields.joined(separator: "\t")
        }

        static func clockTime(milliseconds: Int64) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "HH:mm:ss.SSS"
            return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        }

        func fetch(since: Int64) async throws -> (entries: [[String: Any]], last: Int64) {
            var root = url.hasSuffix("/") ? String(url.dropLast()) : url
            if root.hasSuffix("/_outpost") { root = String(root.dropLast("/_outpost".count)) }
            guard var components = URLComponents(string: root + "/_outpost/journal") else { throw ValidationError("--url: not a URL: \(url)") }
            components.queryItems =
                [URLQueryItem(name: "f", value: "json"), URLQueryItem(name: "since", value: String(since))]
                + [("operation", operation), ("service", service)].compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
            guard let address = components.url else { throw ValidationError("--url: not a URL: \(url)") }
            var request = URLRequest(url: address)
            if let token = token ?? ProcessInfo.processInfo.environment["OUTPOST_TOKEN"], !token.isEmpty {
                request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            }
            let (data, _) = try await URLSession.shared.data(for: request)
            guard let answer = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw ValidationError("\(address): not a JSON object")
            }
            if let error = answer["error"] as? [String: Any] {
                throw ValidationError("\(address): error \(error["code"] ?? ""): \(error["message"] ?? "")")
            }
            return (answer["entries"] as? [[String: Any]] ?? [], (answer["last"] as? NSNumber)?.int64Value ?? since)
        }
    }
}
