import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// What a request did, filled in by the route that served it and logged once when it ends.
public final class RequestRecord: Sendable {
    struct Facts: Sendable {
        var replicaId: String?
        var counts: [(String, Int)] = []
    }

    public let id: String
    private let facts = Mutex(Facts())
    /// What a test target's journal keeps of the request; nil (nothing kept) unless journaling.
    let journalFacts = Mutex<JournalFacts?>(nil)

    init(id: String) { self.id = id }

    /// The replica the request concerned (created, synced, unregistered, read).
    func note(replicaId: String?) {
        guard let replicaId, !replicaId.isEmpty else { return }
        facts.withLock { $0.replicaId = replicaId }
    }

    /// A count worth a log field (`adds`, `features`, …).
    func note(_ name: String, _ count: Int) {
        facts.withLock { $0.counts.append((name, count)) }
    }

    var snapshot: Facts { facts.withLock { $0 } }
}

/// Gives every request an id (the caller's `X-Request-Id`, or a new one, echoed back), then
/// logs one structured line when it is answered — id, method, path, operation, status,
/// replica, counts, duration — and records its latency in the metrics.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = OutpostRequestContext
    let logger: Logger
    let metrics: ServerMetrics

    /// A new request id, in the form of a version 4 UUID, lowercased: a random prefix drawn
    /// once per process and a counter, so ids are unique within a run and apart between runs
    /// without a call to the system's random source per request (it was a system call in the
    /// tile benchmark's profile; Foundation's `UUID()` opened /dev/urandom each time before).
    static func newRequestId() -> String {
        let serial = requestSerial.wrappingAdd(1, ordering: .relaxed).newValue
        var bytes = withUnsafeBytes(of: (requestIdPrefix.bigEndian, serial.bigEndian)) { Array($0) }
        bytes[6] = bytes[6] & 0x0f | 0x40
        bytes[8] = bytes[8] & 0x3f | 0x80
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static let requestIdPrefix: UInt64 = {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }()
    private static let requestSerial = Atomic<UInt64>(UInt64.random(in: 0..<(1 << 48)))

    /// A caller's request id, if it is one we echo (short, printable, no spaces).
    static func acceptedRequestId(_ text: String) -> String? {
        text.count <= 128 && text.allSatisfy { $0.isASCII && !$0.isWhitespace } ? text : nil
    }

    /// The one line a request leaves at `info` (nothing below it).
    static func log(
        _ logger: Logger, id: String, method: String, path: String, operation: String, status: Int, nanoseconds: Int64,
        facts: RequestRecord.Facts = .init(), user: String? = nil
    ) {
        guard logger.logLevel <= .info else { return }
        var metadata: Logger.Metadata = [
            "request_id": .string(id), "method": .string(method), "path": .string(path), "operation": .string(operation),
            "status": .stringConvertible(status), "duration_ms": .string(String(format: "%.1f", Double(nanoseconds) / 1_000_000)),
        ]
        if let replicaId = facts.replicaId { metadata["replica_id"] = .string(replicaId) }
        for (name, count) in facts.counts { metadata[name] = .stringConvertible(count) }
        if let user { metadata["user"] = .string(user) }
        logger.info("request", metadata: metadata)
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let given = request.headers[.requestId].flatMap(Self.acceptedRequestId)
        let record = RequestRecord(id: given ?? Self.newRequestId())
        var context = context
        context.record = record
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.requestId] = record.id
        let elapsed = ContinuousClock.now - started
        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        let operation = ServerMetrics.operationLabel(request.uri.path)
        metrics.requestFinished(operation: operation, status: Int(response.status.code), nanoseconds: nanoseconds)
        Self.log(
            logger, id: record.id, method: request.method.rawValue, path: request.uri.path, operation: operation, status: Int(response.status.code),
            nanoseconds: nanoseconds, facts: logger.logLevel <= .info ? record.snapshot : .init(), user: context.user?.name)
        return response
    }
}

extension HTTPField.Name {
    static let requestId = Self("X-Request-Id")!
}
