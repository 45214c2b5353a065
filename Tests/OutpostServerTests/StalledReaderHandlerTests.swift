import NIOCore
import NIOEmbedded
import Testing

@testable import OutpostServer

/// A client that stops reading a response loses its connection after the limit
/// (docs/reliability.md, "Slow clients"); one that reads again in time keeps it.
@Suite struct StalledReaderHandlerTests {
    static func connected() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: StalledReaderHandler(limit: .seconds(30)))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        return channel
    }

    static func unwritable(_ channel: EmbeddedChannel, _ value: Bool) {
        channel.isWritable = !value
        channel.pipeline.fireChannelWritabilityChanged()
    }

    @Test func aConnectionUnwritableForLongerThanTheLimitIsClosed() throws {
        let channel = try Self.connected()
        Self.unwritable(channel, true)
        channel.embeddedEventLoop.advanceTime(by: .seconds(29))
        #expect(channel.isActive, "not yet")
        channel.embeddedEventLoop.advanceTime(by: .seconds(2))
        #expect(!channel.isActive, "closed once stalled past the limit")
    }

    @Test func aClientThatReadsAgainInTimeKeepsItsConnection() throws {
        let channel = try Self.connected()
        for _ in 0..<5 {
            Self.unwritable(channel, true)
            channel.embeddedEventLoop.advanceTime(by: .seconds(20))
            Self.unwritable(channel, false)
            channel.embeddedEventLoop.advanceTime(by: .seconds(20))
        }
        #expect(channel.isActive, "each stall shorter than the limit")
        _ = try channel.finish()
    }
}
