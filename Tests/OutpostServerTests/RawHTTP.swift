import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One HTTP/1.1 exchange over a plain socket, read to the connection's end: what a client
/// sees of a cut or reset answer (the test client would hide it behind an error).
struct RawHTTPExchange: Sendable {
    /// The status line and headers ("" when nothing was answered).
    var head: String
    var body: [UInt8]

    /// The `Content-Length` the answer announced.
    var contentLength: Int? {
        head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
    }

    /// Sends a GET of `path` to 127.0.0.1:`port` with `Connection: close` and reads until the
    /// server closes (at most `timeout` seconds).
    static func get(port: Int, path: String, timeout: Int = 30) async throws -> RawHTTPExchange {
        // On a thread of its own: blocking one of the few cooperative threads could stall the
        // server under test, which answers on them.
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try blockingGet(port: port, path: path, timeout: timeout) }) }.start()
        }
    }

    struct Failure: Error { var reason: String }

    private static func blockingGet(port: Int, path: String, timeout: Int) throws -> RawHTTPExchange {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw Failure(reason: "socket") }
        defer { close(fd) }
        var wait = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failure(reason: "connect") }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard send(fd, request, request.count, 0) == request.count else { throw Failure(reason: "send") }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { break }
            received += chunk[0..<count]
        }
        let separator = Array("\r\n\r\n".utf8)
        guard let end = (0..<max(0, received.count - 3)).first(where: { Array(received[$0..<$0 + 4]) == separator }) else {
            return RawHTTPExchange(head: String(decoding: received, as: UTF8.self), body: [])
        }
        return RawHTTPExchange(head: String(decoding: received[0..<end], as: UTF8.self), body: Array(received[(end + 4)...]))
    }
}
