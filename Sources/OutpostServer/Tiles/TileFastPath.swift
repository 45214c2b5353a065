import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import OutpostWire
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Tiles already in the server's `TileCache`, answered on the connection's event loop
/// without the router (docs/tiles.md, "Serving tiles fast"): a plain `GET` of
/// `…/MapServer/tile/{level}/{row}/{col}` or `…/VectorTileServer/tile/{z}/{y}/{x}.pbf`, no query,
/// whose set and tile the router has served before. Everything else — a first request, a
/// query string, any other method or path — goes on to the router, which fills the cache.
/// Only installed without token security. The answer is the router's own
/// (`TileServicesController.tileResponse`): same headers, ETag and 304, request id, metrics
/// and log line.
struct TileFastPath: Sendable {
    let cache: TileCache
    let metrics: ServerMetrics
    let crossOrigin: CrossOriginPolicy
    let logger: Logger

    /// The cached tile a request asks for, with its set; nil to leave it to the router. Read
    /// byte by byte: Foundation's string search showed in the profile.
    func cachedTile(_ request: HTTPRequest) -> (set: TileSet, level: Int, row: Int, column: Int, bytes: ByteBuffer)? {
        guard request.method == .get, let path = request.path else { return nil }
        let prefix = "/arcgis/rest/services/".utf8
        let utf8 = path.utf8
        guard utf8.starts(with: prefix), !utf8.contains(UInt8(ascii: "?")), !utf8.contains(UInt8(ascii: "%")) else { return nil }
        let segments = utf8.dropFirst(prefix.count).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        // Name[/Name]/Kind/tile/level/row/col
        guard segments.count == 6 || segments.count == 7, segments[segments.count - 4].elementsEqual("tile".utf8) else { return nil }
        let kindName = segments[segments.count - 5]
        let kind: TileSet.Kind
        if kindName.elementsEqual("MapServer".utf8) {
            kind = .raster
        } else if kindName.elementsEqual("VectorTileServer".utf8) {
            kind = .vector
        } else {
            return nil
        }
        var columnText = segments[segments.count - 1]
        if kind == .vector, columnText.count > 4, columnText.suffix(4).elementsEqual(".pbf".utf8) { columnText = columnText.dropLast(4) }
        guard let level = Int(Substring(segments[segments.count - 3])), let row = Int(Substring(segments[segments.count - 2])),
            let column = Int(Substring(columnText))
        else { return nil }
        let first = segments[0].startIndex
        let name = String(Substring(utf8[first..<segments[segments.count - 5].startIndex].dropLast()))
        guard let set = cache.set(named: name), set.kind == kind,
            let bytes = cache.tile(TileCache.Key(set: set.name, version: set.created, level: level, row: row, column: column))
        else { return nil }
        return (set, level, row, column, bytes)
    }
}

/// The channel handler of `TileFastPath`, placed after Hummingbird's connection state handler
/// (which so sees every request and answer, and keeps its idle and shutdown rules) and before
/// the router's channel. A request is answered when its end has been read.
final class TileFastPathHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private let fastPath: TileFastPath
    private var answering: (request: HTTPRequest, answer: TileAnswer, started: ContinuousClock.Instant)?

    init(_ fastPath: TileFastPath) {
        self.fastPath = fastPath
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            let started = ContinuousClock.now
            if request.headerFields[.connection].map({ $0.caseInsensitiveCompare("close") != .orderedSame }) ?? true,
                let tile = fastPath.cachedTile(request),
                let crossOrigin = fastPath.crossOrigin.headersForGET(CrossOriginMiddleware.described(request))
            {
                var answer = TileAnswer(
                    set: tile.set, level: tile.level, row: tile.row, column: tile.column, bytes: tile.bytes,
                    ifNoneMatch: request.headerFields[.ifNoneMatch])
                answer.headers.append(contentsOf: crossOrigin)
                answering = (request, answer, started)
                return
            }
            context.fireChannelRead(data)
        case .body:
            // A tile request carries no body: whatever comes is dropped with it.
            if answering == nil { context.fireChannelRead(data) }
        case .end:
            guard let (request, answer, started) = answering else {
                context.fireChannelRead(data)
                return
            }
            answering = nil
            write(answer, for: request, started: started, context: context)
        }
    }

    private func write(_ answer: TileAnswer, for request: HTTPRequest, started: ContinuousClock.Instant, context: ChannelHandlerContext) {
        var head = HTTPResponse(status: answer.status, headerFields: answer.headers)
        let id = request.headerFields[.requestId].flatMap(RequestLogMiddleware.acceptedRequestId) ?? RequestLogMiddleware.newRequestId()
        head.headerFields[.requestId] = id
        head.headerFields[.xContentTypeOptions] = "nosniff"
        head.headerFields[.server] = "Outpost"
        head.headerFields[.date] = HTTPDate.now()
        let body = answer.body
        head.headerFields[.contentLength] = String(body?.readableBytes ?? 0)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        let elapsed = ContinuousClock.now - started
        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        fastPath.cache.fastAnswers.add(1, ordering: .relaxed)
        fastPath.metrics.requestFinished(operation: "tile", status: Int(answer.status.code), nanoseconds: nanoseconds)
        RequestLogMiddleware.log(
            fastPath.logger, id: id, method: request.method.rawValue, path: request.path ?? "", operation: "tile",
            status: Int(answer.status.code), nanoseconds: nanoseconds)
    }
}

/// A tile's answer, the router's and the fast path's alike: the bytes with an ETag (the set's
/// import time and the address: a set never changes) and long-lived cache headers, a 304 when
/// the client has them; vector tiles kept gzipped (as MBTiles writers do) labelled so.
struct TileAnswer {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    /// Shared with the cache (no copy).
    var body: ByteBuffer?

    init(set: TileSet, level: Int, row: Int, column: Int, bytes: ByteBuffer, ifNoneMatch: String?) {
        let etag = "\"\(set.created)-\(level)-\(row)-\(column)\""
        headers = [.eTag: etag, .cacheControl: "public, max-age=86400"]
        if ifNoneMatch == etag {
            status = .notModified
            return
        }
        status = .ok
        headers[.contentType] = WebMercatorTiling.contentType(set.format)
        if bytes.readableBytes > 2, bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) == 0x1f,
            bytes.getInteger(at: bytes.readerIndex + 1, as: UInt8.self) == 0x8b
        {
            headers[.contentEncoding] = "gzip"
        }
        body = bytes
    }

    var response: Response {
        Response(status: status, headers: headers, body: body.map { .init(byteBuffer: $0) } ?? .init())
    }
}

/// Hummingbird's HTTP/1 channel with the tile fast path after its connection state handler.
struct FastTileHTTP1Channel: HTTPChannelHandler {
    typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>
    let inner: HTTP1Channel
    let fastPath: TileFastPath

    var responder: Responder { inner.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        inner.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let pipeline = channel.pipeline.syncOperations
            let state = try pipeline.handler(type: HTTPConnectionStateHandler.self)
            try pipeline.addHandler(TileFastPathHandler(fastPath), position: .after(state))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with the tile fast path (`TileFastPath`), or plain HTTP/1 without one.
    static func http1(idleTimeout: TimeAmount, fastPath: TileFastPath?) -> HTTPServerBuilder {
        // A client that stops reading a response is closed after as long as an idle one.
        let configuration = HTTP1Channel.Configuration(
            additionalChannelHandlers: [StalledReaderHandler(limit: idleTimeout)], idleTimeout: idleTimeout)
        guard let fastPath else { return .http1(configuration: configuration) }
        return HTTPServerBuilder { responder in
            FastTileHTTP1Channel(inner: HTTP1Channel(responder: responder, configuration: configuration), fastPath: fastPath)
        }
    }
}

/// The `Date` header's value (RFC 9110 IMF-fixdate), made once a second.
enum HTTPDate {
    private static let cache = Mutex<(second: Int, text: String)>((-1, ""))

    static func now() -> String {
        let second = time(nil)
        return cache.withLock { cache in
            if cache.second == second { return cache.text }
            var parts = tm()
            var clock = second
            gmtime_r(&clock, &parts)
            var buffer = [Int8](repeating: 0, count: 64)
            let length = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
            cache = (second, String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self))
            return cache.text
        }
    }
}
