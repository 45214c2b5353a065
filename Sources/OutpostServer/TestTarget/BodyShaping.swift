import Hummingbird
import NIOCore
import ServiceLifecycle

/// How a fault shapes an answer's body: at most `bytesPerSecond`, and cut (the connection
/// closed mid-body) after `cutAfter` bytes.
struct BodyShaping: Sendable {
    var bytesPerSecond: Int?
    var cutAfter: Int?
    let channel: any Channel

    /// Waits until `due`, or less when the server shuts down (graceful shutdown reaches the
    /// requests' tasks, children of the server's): a slowed answer then goes out at once.
    static func wait(until due: ContinuousClock.Instant) async {
        try? await cancelWhenGracefulShutdown { try await Task.sleep(until: due, clock: .continuous) }
    }

    static func wait(for duration: Duration) async { await wait(until: .now + duration) }

    /// The body, cut off with an error (the server then drops the connection) once the cut is reached.
    struct Cut: Error {}

    func write(_ body: ResponseBody, to writer: inout any ResponseBodyWriter) async throws {
        let forwarder = Forwarder(shaping: self, target: writer)
        try await body.write(forwarder.asWriter)
    }

    /// Passes the body's pieces on, throttled, up to the cut: used by the one task writing
    /// the answer, in turn (hence unchecked).
    final class Forwarder: @unchecked Sendable {
        let shaping: BodyShaping
        var target: any ResponseBodyWriter
        var written = 0
        let started = ContinuousClock.now

        init(shaping: BodyShaping, target: any ResponseBodyWriter) {
            self.shaping = shaping
            self.target = target
        }

        var asWriter: Writer { Writer(forwarder: self) }

        func write(_ buffer: ByteBuffer) async throws {
            var buffer = buffer
            if let cut = shaping.cutAfter, written + buffer.readableBytes >= cut {
                if let head = buffer.readSlice(length: max(0, cut - written)), head.readableBytes > 0 { try await send(head) }
                shaping.channel.close(promise: nil)
                throw Cut()
            }
            try await send(buffer)
        }

        private func send(_ buffer: ByteBuffer) async throws {
            guard let rate = shaping.bytesPerSecond else {
                written += buffer.readableBytes
                try await target.write(buffer)
                return
            }
            // Pieces of a tenth of a second's worth, each sent when the rate allows it.
            var rest = buffer
            let piece = max(1, rate / 10)
            while let slice = rest.readSlice(length: min(piece, rest.readableBytes)), slice.readableBytes > 0 {
                written += slice.readableBytes
                try await target.write(slice)
                let due = started + .milliseconds(Int64(Double(written) / Double(rate) * 1000))
                if due > ContinuousClock.now { await BodyShaping.wait(until: due) }
            }
        }

        func finish() async throws {
            try await target.finish(nil)
        }
    }

    struct Writer: ResponseBodyWriter {
        let forwarder: Forwarder
        mutating func write(_ buffer: ByteBuffer) async throws { try await forwarder.write(buffer) }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws { try await forwarder.finish() }
    }
}
