import HummingbirdCore
import NIOCore
import NIOHTTPTypes

/// Closes a connection that is too slow to send its request: the head within the header timeout (or the idle
/// timeout between kept-alive requests), the body within the body timeout. While the server answers, no deadline
/// runs, so long responses (the QR sign-in's event stream) are never cut.
///
/// It sits after the HTTP decoder, so a head sent a byte at a time (slowloris) is simply a head that never arrives.
final class ConnectionDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let policy: ConnectionPolicy
    private let gauge: ConnectionGauge
    private var deadline: Scheduled<Void>?
    /// Requests whose head has arrived and whose response has not ended (more than one when pipelined).
    private var requestsInProgress = 0
    private var hasServedARequest = false

    init(policy: ConnectionPolicy, gauge: ConnectionGauge) {
        self.policy = policy
        self.gauge = gauge
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { awaitRequest(context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelActive(context: ChannelHandlerContext) {
        awaitRequest(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            requestsInProgress += 1
            arm(context, seconds: policy.bodyTimeout)
        case .body:
            break
        case .end:
            deadline?.cancel()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            requestsInProgress = max(0, requestsInProgress - 1)
            hasServedARequest = true
            if requestsInProgress == 0 { awaitRequest(context) }
        }
        context.write(data, promise: promise)
    }

    private func awaitRequest(_ context: ChannelHandlerContext) {
        let timeout = hasServedARequest ? policy.idleTimeout : policy.headerTimeout
        arm(context, seconds: gauge.isUnderPressure ? min(timeout, policy.pressureTimeout) : timeout)
    }

    private func arm(_ context: ChannelHandlerContext, seconds: Int64) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: .seconds(seconds)) { channel.close(promise: nil) }
    }
}

@available(*, unavailable)
extension ConnectionDeadlineHandler: Sendable {}
