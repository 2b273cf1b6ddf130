import NIOCore
import NIOHTTP1

/// Answers each request of a connection with its ``FixedResponses`` entry (404 with no body
/// for any other path), keeping the connection open unless the request asked to close it.
///
/// It sits after NIO's HTTP server pipeline, which orders pipelined requests; it reads the
/// path from the head and answers at the request's end.
final class FixedBodyHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let responses: FixedResponses
    private var pending: (head: HTTPRequestHead, response: FixedResponses.Response?)?

    /// A handler answering from `responses`.
    init(responses: FixedResponses) {
        self.responses = responses
    }

    /// Keeps the request head until its end, then writes the answer.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            pending = (head, responses.response(forPath: head.uri))
        case .body:
            break
        case .end:
            guard let (request, response) = pending else { return }
            pending = nil
            respond(to: request, with: response, context: context)
        }
    }

    private func respond(to request: HTTPRequestHead, with response: FixedResponses.Response?, context: ChannelHandlerContext) {
        let head: HTTPResponseHead
        if let response {
            head = HTTPResponseHead(version: request.version, status: .ok, headers: response.headers)
        } else {
            head = HTTPResponseHead(version: request.version, status: .notFound, headers: ["Content-Length": "0"])
        }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let response {
            context.write(wrapOutboundOut(.body(.byteBuffer(response.body))), promise: nil)
        }
        let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !request.isKeepAlive {
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            written.whenComplete { _ in bound.value.close(promise: nil) }
        }
    }
}
